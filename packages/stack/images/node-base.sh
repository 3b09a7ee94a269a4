#!/usr/bin/env bash
# The base images kruise-manager's and kruise-daemon's Dockerfiles build on, made on this machine with no
# image registry: Debian 12 `debootstrap --variant=minbase` from Debian's mirror, the Node.js binary of the
# npm `node` package, and (build stage only) npm from the npm registry — see docs/adr/0061-offline-node-base-image.md.
# The root filesystem and npm are cached under KRUISE_IMAGE_CACHE, built once per machine, keyed by what
# goes into them; the images themselves are built into the Docker Engine given (`FROM scratch` + ADD).
# usage: node-base.sh <node binary> <docker socket>
#   prints two lines: `runtime=<image>` (Debian + node) and `build=<image>` (+ npm and the build machine's CAs)
#   env: KRUISE_IMAGE_CACHE (default /var/cache/kruise-images)  DEBIAN_MIRROR (http://deb.debian.org/debian)
#        NPM_VERSION (11.19.1)  DOCKER (the docker CLI; default /usr/bin/docker, Debian's docker.io)
set -euo pipefail
NODE_BIN=${1:?usage: node-base.sh <node binary> <docker socket>}
SOCK=${2:?usage: node-base.sh <node binary> <docker socket>}
CACHE=${KRUISE_IMAGE_CACHE:-/var/cache/kruise-images}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NPM_VERSION=${NPM_VERSION:-11.19.1}
DOCKER=${DOCKER:-/usr/bin/docker}
SUITE=bookworm
# bump when the way the root filesystem is made changes (a new key, so a new debootstrap)
RECIPE=1
HERE=$(cd "$(dirname "$0")" && pwd)
log() { echo "[node-base $(date +%T.%3N)] $*" >&2; }

mkdir -p "$CACHE"
# one maker at a time per machine (tests of several worktrees may start at once); readers of finished files need no lock
exec 8>"$CACHE/.lock"; flock 8

# What debootstrap leaves that a container never uses: apt's caches and lists, documentation, manuals,
# translations; and dpkg told to leave them out of any package installed later (as Debian's slim images do).
slim_rootfs() {
  local R=$1
  rm -rf "$R"/var/cache/apt/archives/*.deb "$R"/var/cache/apt/*.bin "$R"/var/lib/apt/lists/* "$R"/var/log/* \
    "$R"/usr/share/doc/* "$R"/usr/share/man/* "$R"/usr/share/info/* "$R"/usr/share/locale/* "$R"/usr/share/lintian \
    "$R"/var/cache/debconf/*-old "$R"/var/lib/dpkg/*-old "$R"/tmp/* "$R"/root/.cache
  cat >"$R/etc/dpkg/dpkg.cfg.d/slim" <<'EOC'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOC
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nDPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };\n' \
    >"$R/etc/apt/apt.conf.d/slim"
  : >"$R/etc/hostname"; rm -f "$R/etc/resolv.conf" "$R/etc/machine-id"  # the runtime provides these
}

rootfs_tar() {  # -> path of the cached Debian root filesystem (an uncompressed tar, made reproducibly)
  local out="$CACHE/debian-$SUITE-minbase-amd64-r$RECIPE.tar"
  if [ -s "$out" ]; then echo "$out"; return; fi
  command -v debootstrap >/dev/null || {
    log "installing debootstrap"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null; }; }
  local R; R=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  log "debootstrap --variant=minbase $SUITE from $MIRROR"
  local t=$SECONDS
  debootstrap --variant=minbase "$SUITE" "$R" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -20 "$CACHE/debootstrap.log" >&2; rm -rf "$R"; return 1; }
  slim_rootfs "$R"
  tar --sort=name --mtime=@0 --numeric-owner --xattrs -C "$R" -cf "$out.tmp" .
  rm -rf "$R"; mv "$out.tmp" "$out"
  log "root filesystem $(du -h "$out" | cut -f1) in $((SECONDS - t)) s: $out"
  echo "$out"
}

npm_dir() {  # -> a directory holding usr/local/lib/node_modules/npm and the npm and npx links
  local out="$CACHE/npm-$NPM_VERSION"
  if [ -d "$out" ]; then echo "$out"; return; fi
  local T; T=$(mktemp -d "$CACHE/npm.XXXXXX")
  (cd "$T" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$T/root/usr/local/lib/node_modules" "$T/root/usr/local/bin"
  tar -xzf "$T"/npm-*.tgz -C "$T/root/usr/local/lib/node_modules" --no-same-owner
  mv "$T/root/usr/local/lib/node_modules/package" "$T/root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$T/root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$T/root/usr/local/bin/npx"
  mv "$T/root" "$out"; rm -rf "$T"
  log "npm $NPM_VERSION: $out"
  echo "$out"
}

ROOTFS=$(rootfs_tar)
NPM=$(npm_dir)
NODE_VERSION=$("$NODE_BIN" --version)
# the tag names what is in the image: Node's version, and a digest of the root filesystem, node and npm
KEY=$( { sha256sum "$ROOTFS" "$NODE_BIN" | cut -d' ' -f1; echo "npm $NPM_VERSION"; sha256sum "$HERE/node-base.Dockerfile" | cut -d' ' -f1; } | sha256sum | cut -c1-12)
TAG="${NODE_VERSION#v}-$SUITE-$KEY"
RUNTIME="kruise-local/node:$TAG"
BUILD="kruise-local/node-build:$TAG"
D=("$DOCKER" -H "unix://$SOCK")
if ! "${D[@]}" image inspect "$RUNTIME" "$BUILD" >/dev/null 2>&1; then
  # the build context: hard links into the cache (same file system), so nothing large is copied
  CTX=$(mktemp -d "$CACHE/ctx.XXXXXX")
  ln "$ROOTFS" "$CTX/rootfs.tar" 2>/dev/null || cp "$ROOTFS" "$CTX/rootfs.tar"
  cp "$NODE_BIN" "$CTX/node"
  cp -a "$NPM" "$CTX/npm"
  # the CAs this machine's own builds trust (NODE_EXTRA_CA_CERTS, else the system's): the build stage
  # reaches the npm registry as the host does, through whatever TLS proxy the host trusts
  cp "${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" "$CTX/build-ca.crt" 2>/dev/null || : >"$CTX/build-ca.crt"
  t=$SECONDS
  "${D[@]}" build -q --network none -f "$HERE/node-base.Dockerfile" --target runtime -t "$RUNTIME" "$CTX" >/dev/null
  "${D[@]}" build -q --network none -f "$HERE/node-base.Dockerfile" --target build -t "$BUILD" "$CTX" >/dev/null
  rm -rf "$CTX"
  log "built $RUNTIME and $BUILD in $((SECONDS - t)) s"
fi
echo "runtime=$RUNTIME"
echo "build=$BUILD"
