#!/usr/bin/env bash
# The real container runtime the daemon tests, benchmarks and the local stack use, on Debian 12 as root
# (no internet, no systemd): a local registry with hand-built busybox OCI images, and containerd 1.6
# with CRI on a private socket. Started processes are recorded by PID and stopped by PID; each runs in
# a session of its own (setsid), so a Ctrl-C meant for the program that started the stack never reaches
# them — only `down` stops them, in order.
# usage: cri-stack.sh install | install-docker | up | containerd-up | down | env | docker-up | docker-down
#   containerd-up: containerd alone under CRI_STACK_DIR, pulling from the registry another stack runs on
#   REG_PORT (one more node's runtime, with its own images and containers); `down` stops it
#   env: CRI_STACK_DIR (default /tmp/cri-stack)  REG_PORT (5000)  BIG_MB (80)  CRI_STACK_CNI (1|0)  SNAPSHOTTER (overlayfs|native)
#   CRI_STACK_CNI=1 (default): pods not in the host network get their own network namespace and an IP on
#   a bridge of this containerd's own (kcni<N>, 10.88.<N>.0/24, N the first free from 1), as a CNI
#   bridge gives them on a kubelet's node; 0: no CNI config, so only host-network pods can run
set -euo pipefail
BASE=${CRI_STACK_DIR:-/tmp/cri-stack}
REG=127.0.0.1:${REG_PORT:-5000}
BIG_MB=${BIG_MB:-80}
CNI=${CRI_STACK_CNI:-1}
SNAP=${SNAPSHOTTER:-overlayfs}
SOCK=$BASE/containerd/containerd.sock
log() { echo "[cri-stack $(date +%T.%3N)] $*" >&2; }

install() {
  if command -v containerd >/dev/null && command -v runc >/dev/null && command -v docker-registry >/dev/null \
     && command -v skopeo >/dev/null && [ -x /bin/busybox ] && command -v curl >/dev/null && command -v ctr >/dev/null \
     && [ -x /usr/lib/cni/bridge ] && command -v ip >/dev/null && command -v flock >/dev/null; then
    log "packages already installed"; return
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    containerd runc containernetworking-plugins docker-registry skopeo busybox-static curl ca-certificates iproute2 >/dev/null
  containerd --version; runc --version | head -1; skopeo --version
}

install_docker() {
  if command -v dockerd >/dev/null; then log "docker.io already installed"; return; fi
  export DEBIAN_FRONTEND=noninteractive
  # no init system here: keep the package's scripts from starting a daemon of their own
  # (an existing policy-rc.d is left as it is; ours is removed again)
  local ours=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; ours=1; fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends docker.io >/dev/null
  if [ "$ours" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
  dockerd --version
}

start_registry() {
  mkdir -p "$BASE/registry/data"
  cat > "$BASE/registry/config.yml" <<EOC
version: 0.1
log: { level: warn, accesslog: { disabled: true } }
storage:
  filesystem: { rootdirectory: $BASE/registry/data }
  delete: { enabled: true }
http: { addr: $REG }
EOC
  setsid nohup docker-registry serve "$BASE/registry/config.yml" >"$BASE/registry/registry.log" 2>&1 &
  echo $! >"$BASE/registry/pid"
  for _ in $(seq 1 100); do curl -sf "http://$REG/v2/" >/dev/null && { log "registry up on $REG (pid $(cat "$BASE/registry/pid"))"; return; }; sleep 0.1; done
  log "registry failed to start"; cat "$BASE/registry/registry.log"; return 1
}

build_images() {  # OCI images by hand: tar layers + sha256sum + JSON, pushed with skopeo (plain HTTP)
  local W="$BASE/images" TAR="tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner"
  rm -rf "$W"; mkdir -p "$W/blobs"
  layer() {  # <dir> -> "diffid digest size"
    (cd "$1" && $TAR -cf "$W/l.tar" .)
    local diffid dg; diffid=$(sha256sum "$W/l.tar" | cut -d' ' -f1)
    gzip -n -1 -c "$W/l.tar" >"$W/l.tgz"; rm -f "$W/l.tar"
    dg=$(sha256sum "$W/l.tgz" | cut -d' ' -f1); mv "$W/l.tgz" "$W/blobs/$dg"
    echo "$diffid $dg $(stat -c %s "$W/blobs/$dg")"
  }
  blob() { local dg; dg=$(sha256sum "$1" | cut -d' ' -f1); cp "$1" "$W/blobs/$dg"; echo "$dg $(stat -c %s "$1")"; }
  image() {  # <name:tag> <layer-line>...   (ENTRY / CMD env = JSON arrays)
    local ref=$1 diffids="" layers="" sep="" cdg csz mdg msz; shift
    for l in "$@"; do set -- $l
      diffids+="$sep\"sha256:$1\""
      layers+="$sep{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"sha256:$2\",\"size\":$3}"; sep=,
    done
    printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin:/usr/bin:/sbin:/usr/sbin"],%s"Cmd":%s,"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":[%s]}}' \
      "${ENTRY:+\"Entrypoint\":$ENTRY,}" "${CMD:-[\"sh\"]}" "$diffids" >"$W/config.json"
    read -r cdg csz < <(blob "$W/config.json")
    printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[%s]}' \
      "$cdg" "$csz" "$layers" >"$W/manifest.json"
    read -r mdg msz < <(blob "$W/manifest.json")
    local lay="$W/oci-${ref//[:\/]/-}"; mkdir -p "$lay/blobs/sha256"
    echo '{"imageLayoutVersion":"1.0.0"}' >"$lay/oci-layout"
    printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"latest"}}]}' "$mdg" "$msz" >"$lay/index.json"
    for d in $cdg $mdg $(grep -o 'sha256:[0-9a-f]*' "$W/manifest.json" | cut -d: -f2); do ln -f "$W/blobs/$d" "$lay/blobs/sha256/$d"; done
    skopeo copy --quiet --dest-tls-verify=false "oci:$lay:latest" "docker://$REG/$ref"
    log "pushed $REG/$ref (manifest sha256:$mdg)"
  }
  local R="$W/rootfs-base"; mkdir -p "$R"/{bin,etc,proc,sys,dev,tmp,root,var/run}
  cp /bin/busybox "$R/bin/busybox"
  for a in $("$R/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$R/bin/$a"; done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$R/etc/passwd"; echo 'root:x:0:' >"$R/etc/group"
  local BASEL L1 L2 LB LB2
  BASEL=$(layer "$R")
  for v in v1 v2; do mkdir -p "$W/rootfs-$v/etc"; echo "$v" >"$W/rootfs-$v/etc/image-version"; done
  L1=$(layer "$W/rootfs-v1"); L2=$(layer "$W/rootfs-v2")
  mkdir -p "$W/rootfs-big/data"; head -c "$((BIG_MB * 1024 * 1024))" /dev/urandom >"$W/rootfs-big/data/random.bin"
  LB=$(layer "$W/rootfs-big"); rm -rf "$W/rootfs-big"
  # a second large image with its own bytes, so tests running at once do not share its blobs
  mkdir -p "$W/rootfs-big2/data"; head -c "$((BIG_MB * 1024 * 1024))" /dev/urandom >"$W/rootfs-big2/data/random.bin"
  LB2=$(layer "$W/rootfs-big2"); rm -rf "$W/rootfs-big2"
  image busybox:v1 "$BASEL" "$L1"
  image busybox:v2 "$BASEL" "$L2"
  image big:v1 "$BASEL" "$LB"
  image big2:v1 "$BASEL" "$LB2"
  ENTRY='["/bin/sleep"]' CMD='["infinity"]' image pause:v1 "$BASEL"   # CRI sandbox_image
  rm -rf "$W/blobs"
}

# The pods' network: a bridge and a /24 of this containerd's own, taken under a lock as the first N
# whose bridge does not exist and whose subnet no interface or route uses (several stacks run at once).
# The gateway address is set here, so the bridge plugin changes no sysctl (isGateway false); no uplink,
# no masquerade, no iptables: pods reach each other and the host, the host reaches them.
pod_network() {
  local C="$BASE/containerd" n br=
  exec 9>"/run/lock/cri-stack-cni.lock"; flock 9
  local addrs; addrs=$(ip -4 -o addr show)
  for n in $(seq 1 254); do
    ip link show "kcni$n" >/dev/null 2>&1 && continue
    grep -q " 10\.88\.$n\." <<<"$addrs" && continue
    # any route but the default that covers the subnet (a VPN's 10.0.0.0/8, another cluster's pods)
    [ -n "$(ip -4 route show match "10.88.$n.0/24" | grep -v '^default')" ] && continue
    br=kcni$n; break
  done
  [ -n "$br" ] || { exec 9>&-; log "no free pod subnet in 10.88.1-254.0/24"; return 1; }
  ip link add "$br" type bridge && echo "$br" >"$C/bridge"
  ip addr add "10.88.$n.1/24" dev "$br"; ip link set "$br" up
  exec 9>&-
  cat >"$BASE/cni/net.d/10-kruise-pods.conflist" <<EOC
{ "cniVersion": "0.4.0", "name": "kruise-pods", "plugins": [ { "type": "bridge", "bridge": "$br", "isGateway": false,
  "ipMasq": false, "hairpinMode": true, "ipam": { "type": "host-local", "ranges": [[{ "subnet": "10.88.$n.0/24",
  "gateway": "10.88.$n.1" }]], "routes": [{ "dst": "0.0.0.0/0", "gw": "10.88.$n.1" }], "dataDir": "$BASE/cni/ipam" } } ] }
EOC
  log "pod network $br 10.88.$n.0/24"
}

start_containerd() {
  local C="$BASE/containerd"
  mkdir -p "$C/certs.d/$REG" "$BASE/cni/net.d" "$BASE/logs"
  cat >"$C/certs.d/$REG/hosts.toml" <<EOC
server = "http://$REG"
[host."http://$REG"]
  capabilities = ["pull", "resolve", "push"]
EOC
  [ "$CNI" = 1 ] && pod_network
  cat >"$C/config.toml" <<EOC
version = 2
root = "$C/root"
state = "$C/state"
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[debug]
  address = "$C/debug.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$C/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$REG/pause:v1"
  # this VM lacks CAP_SYS_RESOURCE: runc cannot lower oom_score_adj (pause wants -998) unless this is set
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "$SNAP"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$C/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$BASE/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$C/certs.d"
EOC
  setsid nohup containerd --config "$C/config.toml" >"$C/containerd.log" 2>&1 &
  echo $! >"$C/pid"
  for _ in $(seq 1 300); do
    if ctr -a "$SOCK" plugins ls 2>/dev/null | grep -qE 'io\.containerd\.grpc\.v1 +cri .* ok'; then
      log "containerd up (pid $(cat "$C/pid")), CRI socket $SOCK"; return; fi
    kill -0 "$(cat "$C/pid")" 2>/dev/null || break; sleep 0.1
  done
  log "containerd failed"; tail -20 "$C/containerd.log"; return 1
}

docker_up() {  # optional Docker Engine (apt-get install docker.io) on a private socket; pulls from the same registry
  local D="$BASE/docker"; mkdir -p "$D"
  cat >"$D/daemon.json" <<EOC
{ "data-root": "$D/data", "exec-root": "$D/exec", "pidfile": "$D/dockerd.pid",
  "hosts": ["unix://$D/docker.sock"], "iptables": false, "ip-masq": false, "bridge": "none",
  "insecure-registries": ["$REG"], "oom-score-adjust": 0, "storage-driver": "overlay2" }
EOC
  setsid nohup dockerd --config-file "$D/daemon.json" >"$D/dockerd.log" 2>&1 &
  echo $! >"$D/pid"
  for _ in $(seq 1 300); do
    curl -sf --unix-socket "$D/docker.sock" http://d/_ping >/dev/null 2>&1 && { log "dockerd up (pid $(cat "$D/pid")), DOCKER_HOST=unix://$D/docker.sock"; return; }
    kill -0 "$(cat "$D/pid")" 2>/dev/null || break; sleep 0.1
  done
  log "dockerd failed"; tail -20 "$D/dockerd.log"; return 1
}

docker_down() {
  local D="$BASE/docker" p
  [ -f "$D/pid" ] || return 0
  p=$(cat "$D/pid")
  if kill -0 "$p" 2>/dev/null; then
    for c in $(/usr/bin/docker -H "unix://$D/docker.sock" ps -aq 2>/dev/null); do /usr/bin/docker -H "unix://$D/docker.sock" rm -f "$c" >/dev/null 2>&1 || true; done
    kill "$p"; for _ in $(seq 1 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  fi
  awk -v b="$D/" 'index($5, b) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  rm -rf "$D"; log "dockerd down"
}

down() {
  local C="$BASE/containerd" p netns
  # pod network namespaces (CNI mode) this containerd created and that were never StopPodSandbox'ed
  netns=$(grep -aoE '/var/run/netns/cni-[0-9a-f-]{36}' "$C/root/io.containerd.metadata.v1.bolt/meta.db" 2>/dev/null | sort -u || true)
  if [ -f "$C/pid" ] && kill -0 "$(cat "$C/pid")" 2>/dev/null; then
    log "killing tasks"
    for ns in $(ctr -a "$SOCK" namespaces ls -q 2>/dev/null); do
      for t in $(ctr -a "$SOCK" -n "$ns" tasks ls -q 2>/dev/null); do
        ctr -a "$SOCK" -n "$ns" tasks kill -a -s SIGKILL "$t" 2>/dev/null || true
      done
      # CRI deletes its own exited tasks; wait for that, then force-remove what is left (e.g. `ctr run` tasks)
      for _ in $(seq 1 50); do
        [ -z "$(ctr -a "$SOCK" -n "$ns" tasks ls 2>/dev/null | awk 'NR > 1 && $3 != "STOPPED"')" ] && break; sleep 0.1
      done
      for t in $(ctr -a "$SOCK" -n "$ns" tasks ls -q 2>/dev/null); do ctr -a "$SOCK" -n "$ns" tasks rm -f "$t" >/dev/null 2>&1 || true; done
    done
    log "stopping containerd"
    # (another `down` — the stack's own, killed halfway, and its watchdog's — may have stopped it meanwhile)
    p=$(cat "$C/pid"); kill "$p" 2>/dev/null || true; for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  fi
  for n in $netns; do [ -e "$n" ] || continue; umount "$n" 2>/dev/null || true; rm -f "$n"; done
  for id in $(ls "$C/root/io.containerd.grpc.v1.cri/sandboxes" 2>/dev/null); do rm -f /var/lib/cni/results/*-"$id"-*; done  # libcni cache
  rmdir /var/lib/cni/results /var/lib/cni /var/run/netns 2>/dev/null || true   # (only if empty: another stack may use them)
  # shims left behind (they re-parent to PID 1): only those bound to *our* socket, by PID
  for d in /proc/[0-9]*; do
    if tr '\0' ' ' 2>/dev/null <"$d/cmdline" | grep -q -- "-address $SOCK"; then kill -9 "${d#/proc/}" 2>/dev/null || true; fi
  done
  if [ -f "$BASE/registry/pid" ]; then log "stopping registry"; p=$(cat "$BASE/registry/pid"); kill "$p" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; fi
  # leftover mounts under BASE (rootfs overlays, shm, netns), deepest first
  awk -v b="$BASE/" 'index($5, b) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  if [ -f "$C/bridge" ]; then ip link del "$(cat "$C/bridge")" 2>/dev/null || true; fi
  rm -rf "$BASE"
  rmdir /run/containerd/s /run/containerd 2>/dev/null || true   # shim sockets always live in /run/containerd/s (only if empty)
  log "stack down"
}

case "${1:-}" in
  install) install ;;
  install-docker) install_docker ;;
  up) t=$(date +%s%N); mkdir -p "$BASE"; start_registry; build_images; start_containerd
      log "up in $(( ($(date +%s%N) - t) / 1000000 )) ms" ;;
  containerd-up) mkdir -p "$BASE"; start_containerd ;;
  down) docker_down; down ;;
  docker-up) docker_up ;;
  docker-down) docker_down ;;
  env) echo "CRI_SOCKET=$SOCK"; echo "REGISTRY=$REG"; echo "CONTAINERD_PID=$(cat "$BASE/containerd/pid" 2>/dev/null)"; echo "REGISTRY_PID=$(cat "$BASE/registry/pid" 2>/dev/null)" ;;
  *) echo "usage: $0 install|install-docker|up|containerd-up|down|env|docker-up|docker-down" >&2; exit 2 ;;
esac
