# syntax=docker/dockerfile:1
# The egress-proxies operator image: built in one stage, shipped with production dependencies
# only, run as a non-root user.
#   docker build -t egress-proxies/operator:0.1.0 .

FROM node:20.20-bookworm-slim AS build
WORKDIR /src
ENV PNPM_VERSION=10.34.9 CI=true
# Manifests first, so the dependency layer is reused while only sources change.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml turbo.json tsconfig.base.json tsup.base.ts ./
COPY packages ./packages
COPY apps ./apps
RUN npx -y pnpm@${PNPM_VERSION} install --frozen-lockfile \
 && npx -y pnpm@${PNPM_VERSION} exec turbo run build --filter=@egress-proxies/operator... \
 && npx -y pnpm@${PNPM_VERSION} --filter=@egress-proxies/operator deploy --prod --legacy /out

FROM node:20.20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /out /app
# The image's unprivileged "node" user (uid 1000); the manifests also set runAsNonRoot.
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["node", "/app/dist/main.js"]
CMD ["run"]
