# Production image: Node 24 slim, production dependencies only, running as the unprivileged node user.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The runtime comes from the image; the pinned `node` devDependency is for machines without one.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/.data
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --chown=node:node package.json README.md ./
COPY --chown=node:node src ./src
COPY --chown=node:node migrations ./migrations
COPY --chown=node:node scripts/admin.ts scripts/migrate.ts scripts/outbox.ts ./scripts/
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/api/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--no-memory-reducer", "src/server.ts"]
