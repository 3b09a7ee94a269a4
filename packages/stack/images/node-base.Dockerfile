# The base images node-base.sh builds with no image registry (ADR 0059). Its context: rootfs.tar (Debian 12
# minbase, slimmed), node (the npm `node` package's binary), npm/ (npm's files and the npm and npx links),
# build-ca.crt (the CAs the build machine trusts). No RUN: nothing here needs a network or a shell.

# kruise-manager's and kruise-daemon's runtime stage: Debian and node, as node:24-slim has them (no npm).
FROM scratch AS runtime
ADD rootfs.tar /
COPY node /usr/local/bin/node
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CMD ["node"]

# Their build stage: the runtime plus npm (for `npx -y pnpm@10`) and the build machine's CAs.
FROM runtime AS build
COPY npm/ /
COPY build-ca.crt /usr/local/share/kruise-build/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/kruise-build/ca-certificates.crt
