/**
 * The whole stylesheet, inlined in every page (no render-blocking request). System fonts; colours
 * keep at least 4.5:1 contrast; one column on phones, a grid from 40em up. Nothing widens the page
 * on a phone: a word or address longer than its line breaks anywhere (which also lets flex and grid
 * items shrink below it), code blocks scroll in their own box and images fit theirs.
 */
export const CSS = [
  '*,*::before,*::after{box-sizing:border-box}',
  'html{-webkit-text-size-adjust:100%}',
  'body{margin:0;font:1.0625rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1f;background:#fff;overflow-wrap:anywhere}',
  'a{color:#0b57d0}a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}',
  '.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}.skip:focus{left:.5rem}',
  'header,main,footer{max-width:60rem;margin:0 auto;padding:1rem}',
  'header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between}',
  '.brand{font-weight:700;font-size:1.2rem;text-decoration:none;color:#1b1b1f}',
  'nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}',
  'nav a{display:inline-block;padding:.25rem 0}',
  'h1,h2,h3{line-height:1.25}h1{font-size:clamp(1.9rem,5vw,2.8rem)}',
  'section{margin:2.5rem 0}.lead{font-size:1.2rem;color:#3d3d45}',
  'pre{overflow-x:auto}img{max-width:100%;height:auto;border-radius:.5rem}figure{margin:2rem 0}figcaption{color:#4a4a52;font-size:.95rem}',
  '.grid{list-style:none;padding:0;display:grid;gap:1.25rem}@media(min-width:40em){.grid{grid-template-columns:repeat(auto-fit,minmax(14rem,1fr))}}',
  '.grid li{padding:1rem;border:1px solid #d7d7de;border-radius:.5rem}',
  '.button{display:inline-block;padding:.7rem 1.2rem;border-radius:.4rem;background:#0b57d0;color:#fff;text-decoration:none;font-weight:600}',
  '.quote blockquote{margin:0;padding-left:1rem;border-left:4px solid #0b57d0;font-size:1.15rem}',
  'form p{margin:0 0 1rem}label{display:block;font-weight:600}',
  'input,textarea{width:100%;font:inherit;padding:.55rem;border:1px solid #6b6b75;border-radius:.3rem}',
  '.consent{display:flex;gap:.6rem;align-items:flex-start}.consent input{width:auto;margin-top:.35rem}.consent label{font-weight:400}',
  'button{font:inherit;font-weight:600;padding:.7rem 1.2rem;border:0;border-radius:.4rem;background:#0b57d0;color:#fff;cursor:pointer}',
  'footer{border-top:1px solid #d7d7de;color:#4a4a52;font-size:.95rem}',
].join('')
