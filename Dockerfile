# syntax=docker/dockerfile:1
# Build stage: compile TypeScript to dist/.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY config ./config
RUN npm run build

# Runtime stage: production dependencies (lmdb ships prebuilt binaries) and the compiled output.
FROM node:24-slim
ENV NODE_ENV=production \
    LARDER_HOST=0.0.0.0 \
    LARDER_PORT=3142 \
    LARDER_DATA=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config ./config
# `larder` on PATH for the admin subcommands: docker exec -i <container> larder user add alice --password-stdin
RUN printf '#!/bin/sh\nexec node /app/dist/src/main.js "$@"\n' > /usr/local/bin/larder && chmod 755 /usr/local/bin/larder \
 && mkdir -p /data && chown node:node /data
# A young generation of at most 4 MiB a half: after a burst of requests V8 keeps what it grew to (up to
# 16 MiB a half by default), about 15-20 MiB of resident memory that a sidecar never gets back.
ENV NODE_OPTIONS=--max-semi-space-size=4
USER node
VOLUME /data
EXPOSE 3142
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.LARDER_PORT||3142)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["serve"]
