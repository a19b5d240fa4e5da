#!/usr/bin/env bash
# Proves the image: builds the Dockerfile with podman (Debian's podman, runc), starts the container
# and checks what a deployment relies on. Run as root (CI is root) from anywhere in the repository:
#
#   scripts/image-check.sh
#
# The Dockerfile starts FROM node:20-slim. The script first tries to pull the official
# docker.io/library/node:20-slim; where it cannot be pulled (CI reaches only the npm registry and
# deb.debian.org), it builds an OFFLINE STAND-IN for that image and tags it
# docker.io/library/node:20-slim so the Dockerfile builds unchanged: a Debian 12 minbase made with
# debootstrap, this machine's Node 20 (binary, npm, corepack and Node's headers, in /usr/local as in
# the official image), the user node (uid/gid 1000, as in the official image) and this machine's CA
# bundle with an npmrc pointing npm at it (so npm inside the build trusts what this machine trusts,
# e.g. a TLS-intercepting egress proxy). It is not the official image: its label
# org.opencontainers.image.description says so, and the built image inherits that label.
#
# Checks, in order; the first that fails stops the script with its name and exit 1:
#   1. /readyz answers 200 (polled until IMAGE_CHECK_READY_TIMEOUT seconds have passed)
#   2. /healthz answers 200
#   3. the image's own HEALTHCHECK command passes inside the container
#   4. the server process (pid 1) runs with a non-zero uid
#   5. /metrics has verifier_hash_backend_info{backend="native-adx" or "native"} 1 (a native Poseidon8 kernel:
#      ADX where the CPU has BMI2 and ADX, else the portable C one)
#      and verifier_bhp_backend_info{backend="native"} 1 (the native BHP of the inclusion proofs)
#   6. better-sqlite3 (the ledger watcher's store, compiled in the image) opens a database
#   7. POST /decodeReport with the README example answers outcome "valid"
#
# Environment:
#   IMAGE_CHECK_CONFIG         a config file mounted at /app/config.json (default: none, the image's
#                              own bundled /app/config.json is used)
#   IMAGE_CHECK_REQUEST        the /decodeReport body (default examples/readme-request.json)
#   IMAGE_CHECK_STATE          podman's storage for this script (default
#                              /var/tmp/oracle-verifier-image-check; it keeps the base and the build
#                              layers between runs; delete it for a cold run)
#   IMAGE_CHECK_READY_TIMEOUT  seconds to wait for /readyz (default 180)
#   IMAGE_CHECK_PULL_TIMEOUT   seconds allowed for the pull of the official base (default 120)
#   DEBIAN_MIRROR              debootstrap's mirror (default http://deb.debian.org/debian)
#
# Podman runs with its own storage and flags only (no global machine configuration is changed):
# cgroupfs (no systemd), a file events backend, runc, and explicit ulimits no higher than this
# shell's hard limits: podman otherwise asks runc for 1048576 open files and more processes than
# the machine allows, which fails with "error setting rlimit type 7 (then 6): operation not
# permitted" where the machine denies CAP_SYS_RESOURCE (the CI machine does).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=localhost/oracle-verifier:image-check
BASE=docker.io/library/node:20-slim
CONTAINER=oracle-verifier-image-check-$$
STATE=${IMAGE_CHECK_STATE:-/var/tmp/oracle-verifier-image-check}
REQUEST=${IMAGE_CHECK_REQUEST:-examples/readme-request.json}
CONFIG=${IMAGE_CHECK_CONFIG:-}
READY_TIMEOUT=${IMAGE_CHECK_READY_TIMEOUT:-180}
PULL_TIMEOUT=${IMAGE_CHECK_PULL_TIMEOUT:-120}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

fail() { echo "image-check: FAILED: $*" >&2; exit 1; }

T0=$EPOCHREALTIME
STEP_NAME=''
STEP_T=''
step() { STEP_NAME=$1; STEP_T=$EPOCHREALTIME; echo "== $STEP_NAME"; }
done_step() { printf '   ok: %s (%.1f s)\n' "$STEP_NAME" "$(elapsed "$STEP_T")"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }'; }

# --- prerequisites ---------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || fail "run as root (rootful podman with its own storage under $STATE)"
for cmd in podman runc curl jq tar; do
  command -v "$cmd" >/dev/null 2>&1 || fail "$cmd not found (Debian: apt-get install -y podman runc debootstrap curl jq)"
done
[ -f "$REQUEST" ] || fail "the example request $REQUEST does not exist"
if [ -n "$CONFIG" ]; then
  [ -f "$CONFIG" ] || fail "IMAGE_CHECK_CONFIG=$CONFIG does not exist"
  CONFIG=$(realpath "$CONFIG")
fi

# Limits no higher than this shell's (see the header): lowering needs no privilege.
nofile=$(ulimit -Hn)
if [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; then nofile=65536; fi
nproc=$(ulimit -Hu)
if [ "$nproc" = unlimited ] || [ "$nproc" -gt 4096 ]; then nproc=4096; fi
ULIMITS=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
mkdir -p "$STATE"
PODMAN=(podman --root "$STATE/storage" --runroot "$STATE/run" --storage-driver overlay
  --cgroup-manager cgroupfs --events-backend file --runtime runc)
pm() { "${PODMAN[@]}" "$@"; }

cleanup() {
  local rc=$?
  if pm container exists "$CONTAINER" 2>/dev/null; then
    if [ "$rc" != 0 ]; then
      echo "--- container log (last 40 lines) ---" >&2
      pm logs --tail 40 "$CONTAINER" >&2 || true
    fi
    pm rm --force --time 5 "$CONTAINER" >/dev/null || echo "image-check: could not remove container $CONTAINER" >&2
  fi
  [ -z "${ROOTFS:-}" ] || rm -rf "$ROOTFS"
  [ -z "${BODY:-}" ] || rm -f "$BODY"
  [ "$rc" = 0 ] || echo "image-check: failed after $(printf '%.0f' "$(elapsed "$T0")") s" >&2
}
trap cleanup EXIT

# --- the base image --------------------------------------------------------------------------
# node:20-slim from Docker Hub, else the offline stand-in (see the header).
offline_base() {
  local node_bin prefix
  command -v debootstrap >/dev/null 2>&1 || fail "base: debootstrap not found (apt-get install -y debootstrap)"
  node_bin=$(realpath "$(command -v node)") || fail "base: no node on this machine to copy into the offline base"
  [[ $("$node_bin" --version) == v20.* ]] || fail "base: this machine's node is $("$node_bin" --version), the image needs Node 20"
  prefix=$(dirname "$(dirname "$node_bin")")
  [ -f "$prefix/lib/node_modules/npm/bin/npm-cli.js" ] || fail "base: npm not found at $prefix/lib/node_modules/npm"
  [ -f "$prefix/include/node/node_api.h" ] || fail "base: Node's headers not found at $prefix/include/node (node-gyp would download them)"

  ROOTFS=$(mktemp -d "$STATE/rootfs.XXXXXX")
  echo "   debootstrap --variant=minbase bookworm from $MIRROR"
  debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" > "$STATE/debootstrap.log" 2>&1 \
    || { tail -20 "$STATE/debootstrap.log" >&2; fail "base: debootstrap failed (log: $STATE/debootstrap.log)"; }
  # The official image's apt sources: the release, its updates and the security archive.
  cat > "$ROOTFS/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
EOF
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*

  echo "   Node $("$node_bin" --version) from $prefix into /usr/local"
  mkdir -p "$ROOTFS"/usr/local/{bin,lib/node_modules,include,etc}
  cp "$node_bin" "$ROOTFS/usr/local/bin/node"
  cp -a "$prefix/lib/node_modules/npm" "$ROOTFS/usr/local/lib/node_modules/"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
  if [ -d "$prefix/lib/node_modules/corepack" ]; then
    cp -a "$prefix/lib/node_modules/corepack" "$ROOTFS/usr/local/lib/node_modules/"
    ln -s ../lib/node_modules/corepack/dist/corepack.js "$ROOTFS/usr/local/bin/corepack"
  fi
  cp -a "$prefix/include/node" "$ROOTFS/usr/local/include/"
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    mkdir -p "$ROOTFS/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
    echo "cafile=/etc/ssl/certs/ca-certificates.crt" > "$ROOTFS/usr/local/etc/npmrc"
  fi
  local in_root=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin chroot "$ROOTFS")
  "${in_root[@]}" groupadd --gid 1000 node
  "${in_root[@]}" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  "${in_root[@]}" node --version >/dev/null || fail "base: node does not run inside the debootstrap root (missing libraries?)"
  "${in_root[@]}" npm --version >/dev/null || fail "base: npm does not run inside the debootstrap root"

  tar -C "$ROOTFS" --numeric-owner -c . | pm import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["node"]' \
    --change "LABEL org.opencontainers.image.description=\"offline stand-in for $BASE built by scripts/image-check.sh (debootstrap bookworm minbase + this machine's Node $("$node_bin" --version)); not the official image\"" \
    --quiet - "$BASE" >/dev/null || fail "base: podman import failed"
  rm -rf "$ROOTFS"
  ROOTFS=''
}

step "base image $BASE"
if pm image exists "$BASE"; then
  echo "   present in $STATE (from an earlier run: $(pm image inspect --format '{{index .Labels "org.opencontainers.image.description"}}' "$BASE" | sed 's/^$/the official image/'))"
elif timeout "$PULL_TIMEOUT" "${PODMAN[@]}" pull --quiet "$BASE" > "$STATE/pull.log" 2>&1; then
  echo "   pulled the official image"
else
  echo "   cannot pull it ($(tail -1 "$STATE/pull.log")); building the offline stand-in"
  offline_base
fi
done_step

# --- the image -------------------------------------------------------------------------------
step "build $IMAGE"
# --format docker keeps the Dockerfile's HEALTHCHECK (the OCI format has none); --pull=never: the
# base is the one above; the build's network is podman's default bridge (npm ci and apt-get).
pm build --format docker --pull=never "${ULIMITS[@]}" --tag "$IMAGE" --file Dockerfile . > "$STATE/build.log" 2>&1 \
  || { tail -40 "$STATE/build.log" >&2; fail "build: podman build failed (log: $STATE/build.log)"; }
grep -E '^native Poseidon8 kernel:' "$STATE/build.log" | sed 's/^/   /' || true
done_step
size=$(pm image inspect --format '{{.Size}}' "$IMAGE")
printf '   image size: %s bytes (%.0f MB)\n' "$size" "$(awk -v s="$size" 'BEGIN { print s / 1e6 }')"

# --- the container ---------------------------------------------------------------------------
step "start the container"
# --no-healthcheck: podman schedules health checks with systemd timers, which a machine without
# systemd lacks; check 3 runs the image's HEALTHCHECK command itself.
run_args=(--detach --name "$CONTAINER" --no-healthcheck "${ULIMITS[@]}" --publish 127.0.0.1::8080)
[ -z "$CONFIG" ] || run_args+=(--volume "$CONFIG:/app/config.json:ro")
pm run "${run_args[@]}" "$IMAGE" >/dev/null || fail "start: podman run failed"
port=$(pm port "$CONTAINER" 8080/tcp | head -1) || fail "start: no published port for 8080"
URL="http://${port}"
echo "   $URL (config: ${CONFIG:-/app/config.json of the image})"
done_step

step "1. /readyz answers 200 (within ${READY_TIMEOUT} s)"
deadline=$(( $(date +%s) + READY_TIMEOUT ))
until [ "$(curl -s -o /dev/null -w '%{http_code}' -m 5 "$URL/readyz")" = 200 ]; do
  [ "$(pm inspect --format '{{.State.Running}}' "$CONTAINER")" = true ] \
    || fail "readyz: the container exited (status $(pm inspect --format '{{.State.ExitCode}}' "$CONTAINER"))"
  [ "$(date +%s)" -lt "$deadline" ] || fail "readyz: no 200 from $URL/readyz within ${READY_TIMEOUT} s"
  sleep 0.5 # poll interval; the deadline above bounds the wait
done
done_step

step "2. /healthz answers 200"
code=$(curl -s -o /dev/null -w '%{http_code}' -m 10 "$URL/healthz")
[ "$code" = 200 ] || fail "healthz: $URL/healthz answered $code"
done_step

step "3. the image's HEALTHCHECK passes"
hc=$(pm image inspect --format '{{json .HealthCheck.Test}}' "$IMAGE")
[[ $hc == '["CMD",'* ]] || fail "healthcheck: the image has no HEALTHCHECK CMD (got $hc)"
mapfile -t hc_cmd < <(jq -r '.[1:][]' <<<"$hc")
pm exec "$CONTAINER" "${hc_cmd[@]}" || fail "healthcheck: the image's HEALTHCHECK command exited $?"
done_step

step "4. the server runs as a non-root user"
uid=$(pm exec "$CONTAINER" awk '/^Uid:/ { print $3 }' /proc/1/status) || fail "uid: cannot read /proc/1/status"
[[ $uid =~ ^[0-9]+$ ]] || fail "uid: unreadable effective uid '$uid'"
[ "$uid" != 0 ] || fail "uid: the server (pid 1) runs as root"
echo "   pid 1 effective uid $uid ($(pm exec "$CONTAINER" cat /proc/1/cmdline | tr '\0' ' '))"
done_step

step "5. the native hash kernel is loaded"
metrics=$(curl -sf -m 10 "$URL/metrics") || fail "metrics: $URL/metrics did not answer 200"
line=$(grep -E '^verifier_hash_backend_info\{' <<<"$metrics" || true)
echo "   ${line:-no verifier_hash_backend_info series}"
grep -qxE 'verifier_hash_backend_info\{backend="native(-adx)?"\} 1' <<<"$line" \
  || fail "metrics: verifier_hash_backend_info is not {backend=\"native-adx\" or \"native\"} 1 (the image runs without its native kernel)"
bhp=$(grep -E '^verifier_bhp_backend_info\{' <<<"$metrics" || true)
echo "   ${bhp:-no verifier_bhp_backend_info series}"
grep -qxF 'verifier_bhp_backend_info{backend="native"} 1' <<<"$bhp" \
  || fail "metrics: verifier_bhp_backend_info is not {backend=\"native\"} 1 (the image runs without its native BHP)"
done_step

step "6. better-sqlite3 loads and opens a database"
pm exec --workdir /app "$CONTAINER" node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()" \
  || fail "better-sqlite3: its compiled module does not load in the image"
done_step

step "7. POST /decodeReport with $REQUEST answers outcome \"valid\""
BODY=$(mktemp)
code=$(curl -s -o "$BODY" -w '%{http_code}' -m 60 -H 'content-type: application/json' --data-binary "@$REQUEST" "$URL/decodeReport")
outcome=$(jq -r '.outcome // "none"' "$BODY" 2>/dev/null || echo 'not JSON')
echo "   HTTP $code, outcome $outcome$(jq -r 'if .errorCode then ", \(.errorCode): \(.errorString)" else "" end' "$BODY" 2>/dev/null)"
[ "$code" = 200 ] && [ "$outcome" = valid ] || fail "decodeReport: expected HTTP 200 with outcome \"valid\", got HTTP $code, outcome $outcome"
done_step

printf 'image-check: all checks passed; image %s, %s bytes; total %.0f s\n' "$IMAGE" "$size" "$(elapsed "$T0")"
