# syntax=docker/dockerfile:1
# The build stage type-checks the sources and compiles them to dist/ (`npm run build`); the runtime
# image holds dist/ without the sources, so bin/hostwarden runs plain JavaScript (about 90 MB less
# RSS than tsx). It has production dependencies only and runs as an unprivileged numeric user
# (Kubernetes can verify runAsNonRoot against it). The build stage also compiles the DNS server's
# native UDP addon (build/native, from src/dns/server/native/udp.c) with gcc; the runtime stage gets the
# compiled file only, no compiler.

# The newest Node.js LTS (docs/deploy.md, "Supported Node.js releases") on Debian 13 (trixie), the
# default base of the Node 26 images: Debian 12 left regular security support in June 2026.
ARG NODE_IMAGE=node:26-trixie-slim

# Full install: type-check the sources that go into the image, then compile them (tests excluded).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
RUN npx tsc --noEmit -p tsconfig.json \
 && npm run build \
 && HOSTWARDEN_NATIVE_REQUIRED=1 npm run build:native

# Production dependencies only, installed from the lock file.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# npm is not needed at run time; removing it removes its dependencies' CVEs from the image.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/bin/npm /usr/local/bin/npx
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/build ./build
USER 65532:65532
# DNS (the Service maps 53 to 5353, so no privileged port or capability is needed) and metrics.
EXPOSE 5353/udp 5353/tcp 7979/tcp
# A 2 MB young generation instead of V8's 16 MB: a sync's garbage dies young either way, and at
# 10k Services + 10k Ingresses the peak RSS is about 35 MB lower (docs/performance.md).
ENTRYPOINT ["node","--max-semi-space-size=2","bin/hostwarden"]
