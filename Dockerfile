# syntax=docker/dockerfile:1
# The egress-proxies operator image: built in one stage, shipped with production dependencies
# only, run as a non-root user.
#   docker build -t egress-proxies/operator:0.1.0 .
#   buildah bud --build-arg NODE_IMAGE=localhost/node20-base:latest -t egress-proxies/operator:0.1.0 .
# NODE_IMAGE is any image with Node 20 and npm on PATH and a uid 1000 user (the official one, or
# a locally built base where no registry is reachable).
ARG NODE_IMAGE=node:20.20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV PNPM_VERSION=10.34.9 CI=true
RUN npm install -g --no-fund --no-audit pnpm@${PNPM_VERSION}
# Dependencies come from the lockfile alone (`pnpm fetch`), so this layer is reused until the
# lockfile changes: a source or package.json script edit does not download anything again.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY package.json turbo.json tsconfig.base.json tsup.base.ts ./
COPY packages ./packages
COPY apps ./apps
# The image runs JavaScript only: no declaration files (most of the build time).
RUN pnpm install --offline --frozen-lockfile \
 && EGRESS_PROXIES_SKIP_DTS=1 pnpm exec turbo run build --filter=@egress-proxies/operator... \
 && pnpm --filter=@egress-proxies/operator deploy --prod --legacy /out

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /out /app
# The image's unprivileged "node" user (uid 1000); the manifests also set runAsNonRoot.
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["node", "/app/dist/main.js"]
CMD ["run"]
