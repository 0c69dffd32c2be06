import type { FastifyInstance } from 'fastify'

/**
 * The dashboard's scripts. Every page works without them; where scripts run they add what a
 * form cannot: copying a secret shown once, the progress of an upload, and of a publish.
 */

/** A copy button for a secret shown once (layout.ts `shownOnce`). */
const COPY =
  "(function(){var b=document.getElementById('copy'),s=document.getElementById('secret');if(!b||!s||!navigator.clipboard)return;b.hidden=false;b.onclick=function(){navigator.clipboard.writeText(s.textContent).then(function(){b.textContent=b.dataset.copied||'Copied'})}})()"

/**
 * The upload form of the Photos page sent with a progress bar (`form[data-upload]` and its
 * `progress`). A success is answered with where to go (204 and Location, `x-upload: progress`); a
 * page answered instead (a refused file) replaces this one, as the plain form would show it; a
 * lost connection sends the form the plain way.
 */
const UPLOAD =
  "(function(){var f=document.querySelector('form[data-upload]');if(!f||!window.FormData||!window.XMLHttpRequest)return;var p=f.querySelector('progress');f.addEventListener('submit',function(e){e.preventDefault();var x=new XMLHttpRequest();x.open('POST',f.action);x.setRequestHeader('x-upload','progress');if(p){p.hidden=false;p.value=0}x.upload.onprogress=function(v){if(p&&v.lengthComputable)p.value=v.loaded/v.total};x.onload=function(){if(x.status===204&&x.getResponseHeader('location'))location.assign(x.getResponseHeader('location'));else if(x.status<500&&x.responseText){document.open();document.write(x.responseText);document.close()}else f.submit()};x.onerror=function(){f.submit()};x.send(new FormData(f))})})()"

/**
 * A publish followed on the site's page (`#build-status[data-status-url]`): its status asked for
 * every second and written into the live region, the "check again" link hidden meanwhile; once
 * the build is done the link comes back to show the updated list.
 */
const PROGRESS =
  "(function(){var s=document.getElementById('build-status'),a=document.getElementById('check-again');if(!s||!s.dataset.statusUrl||!window.fetch)return;if(a)a.hidden=true;function tick(){fetch(s.dataset.statusUrl,{headers:{accept:'application/json'},credentials:'same-origin'}).then(function(r){return r.ok?r.json():null}).then(function(b){if(!b){if(a)a.hidden=false;return}s.textContent=b.text;if(b.active)setTimeout(tick,1000);else if(a){a.textContent=b.next;a.hidden=false}},function(){if(a)a.hidden=false})}setTimeout(tick,1000)})()"

export function dashboardScripts(app: FastifyInstance): void {
  for (const [path, script] of [
    ['/copy.js', COPY],
    ['/upload.js', UPLOAD],
    ['/progress.js', PROGRESS],
  ] as const)
    app.get(path, { config: { operation: 'dashboard.script' }, schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'private, max-age=300').type('text/javascript; charset=utf-8').send(script),
    )
}
