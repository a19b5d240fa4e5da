#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# get-enclave-id.sh - reproducible build of the oracle notarization backend. Builds the SGX enclave
# (EGo) and the Nitro enclave image (nitro-cli) from source and prints their measurements, the
# target values for config.json (uniqueIdTarget, pcrValuesTarget). Run `get-enclave-id.sh -h`.
#
# Standard output carries only the result; progress and errors go to standard error.

# Callers may run this file with a POSIX sh (`/bin/sh get-enclave-id.sh`): continue under bash.
if [ -z "${BASH_VERSION:-}" ]; then
  if ! command -v bash >/dev/null 2>&1; then
    echo "get-enclave-id.sh: bash is required but was not found in PATH" >&2
    exit 1
  fi
  exec bash "$0" "$@"
fi

set -Eeuo pipefail

readonly PROG=get-enclave-id.sh
readonly DEFAULT_CA_CERT_DATE=2024-07-02
readonly DEFAULT_ORACLE_REVISION=main
readonly DEFAULT_CA_BUNDLE_BASE_URL=https://curl.se/ca
readonly DEFAULT_AWS_NITRO_ROOT_URL=https://aws-nitro-enclaves.amazonaws.com/AWS_NitroEnclaves_Root-G1.zip
# SHA-256 of AWS_NitroEnclaves_Root-G1.zip; fixed, whatever URL it is fetched from.
readonly AWS_NITRO_ROOT_ZIP_SHA256=8cf60e2b2efca96c6a9e71e851d00c1b6991cc09eadbe64a6a1d1b1eb9faff7c
readonly REQUIRED_TOOLS=(git ego-go ego docker curl openssl unzip jq sha256sum)

usage() {
  cat <<EOF
Usage: $PROG [-h|--help|-?]

Builds the oracle notarization backend reproducibly and prints the enclave measurements to use
as targets in config.json:

  Oracle SGX unique ID:
  <SGX enclave unique ID (MRENCLAVE), 64 hex characters>
  Oracle Nitro PCR:
  <PCR0, 96 hex characters>
  <PCR1, 96 hex characters>
  <PCR2, 96 hex characters>

Only these lines go to standard output; progress and errors go to standard error. On failure
the exit status is non-zero and nothing is printed on standard output.

Steps: download the curl CA bundle cacert-\$CA_CERT_DATE.pem and verify it against its .sha256;
download AWS_NitroEnclaves_Root-G1.zip, require SHA-256 $AWS_NITRO_ROOT_ZIP_SHA256
and extract root.pem; clone \$ORACLE_REPO (with submodules), check out \$ORACLE_REVISION and copy
both files into the tree; build with 'ego-go build -trimpath -ldflags=-buildid=', 'ego sign' and
'ego uniqueid'; build the notarizer docker image and turn it into an enclave image with
'nitro-cli build-enclave' run in a container, reading .Measurements.PCR0/1/2 of its JSON output.

Environment:
  ORACLE_REPO          Required. Git URL of the notarization backend source (there is no public
                       default; e.g. an SSH or HTTPS URL you have access to).
  ORACLE_REVISION      Branch, commit hash or tag to build. Default: $DEFAULT_ORACLE_REVISION
  CA_CERT_DATE         Revision (date) of the curl CA bundle. Default: $DEFAULT_CA_CERT_DATE
  TEMP_WD              Working directory. Default: a new directory made with mktemp -d in the
                       current directory. It is DELETED on exit, also when you set it; a directory
                       you name must therefore not exist yet or be empty.
  CA_BUNDLE_BASE_URL   Where cacert-<date>.pem and cacert-<date>.pem.sha256 are downloaded from.
                       Default: $DEFAULT_CA_BUNDLE_BASE_URL
  AWS_NITRO_ROOT_URL   URL of AWS_NitroEnclaves_Root-G1.zip (the SHA-256 above is always
                       required). Default: $DEFAULT_AWS_NITRO_ROOT_URL
  CA_BUNDLE_DEST       Path inside the source tree the CA bundle is copied to. Default: cacert.pem
  NITRO_ROOT_DEST      Path inside the source tree root.pem is copied to. Default: root.pem
  NOTARIZER_IMAGE      Tag of the notarizer docker image built from the source tree's Dockerfile.
                       Default: oracle-notarization-backend
  NITRO_CLI_IMAGE      Docker image providing the nitro-cli command. Default: nitro-cli
  NITRO_CLI_DOCKERFILE Dockerfile to build NITRO_CLI_IMAGE from (its directory is the build
                       context). Default: ./Dockerfile.nitro when that file exists; otherwise the
                       image must already exist.
  DOCKER_SOCKET        Docker daemon socket mounted into the nitro-cli container, so nitro-cli can
                       read NOTARIZER_IMAGE. Default: /var/run/docker.sock

The nitro-cli image needs nitro-cli on PATH (no enclave hardware is needed to build an image),
for example:

  FROM amazonlinux:2023
  RUN dnf install -y aws-nitro-enclaves-cli aws-nitro-enclaves-cli-devel && dnf clean all

PCR values depend on the nitro-cli version (its kernel and init blobs): pin the image to the
version the published measurements were made with.

Prerequisites on PATH: ${REQUIRED_TOOLS[*]} and a running docker daemon.
EOF
}

log() { printf '[%s] %s\n' "$PROG" "$*" >&2; }

die() {
  printf '%s: %s\n' "$PROG" "$*" >&2
  printf "Failed to obtain Oracle's unique ID\n" >&2
  exit 1
}

on_error() {
  local status=$? line=$1 cmd=$2
  printf '%s: line %s: command failed with status %s: %s\n' "$PROG" "$line" "$status" "$cmd" >&2
  printf "Failed to obtain Oracle's unique ID\n" >&2
  exit "$status"
}

# --- arguments -----------------------------------------------------------------------------------
for arg in "$@"; do
  case "$arg" in
    -h | --help | '-?')
      usage
      exit 0
      ;;
    *)
      usage >&2
      die "unknown argument: $arg"
      ;;
  esac
done

# --- configuration -------------------------------------------------------------------------------
if [ -z "${ORACLE_REPO:-}" ]; then
  die "ORACLE_REPO is not set: set it to the git URL of the oracle notarization backend source (see $PROG -h)"
fi
ORACLE_REVISION=${ORACLE_REVISION:-$DEFAULT_ORACLE_REVISION}
CA_CERT_DATE=${CA_CERT_DATE:-$DEFAULT_CA_CERT_DATE}
CA_BUNDLE_BASE_URL=${CA_BUNDLE_BASE_URL:-$DEFAULT_CA_BUNDLE_BASE_URL}
CA_BUNDLE_BASE_URL=${CA_BUNDLE_BASE_URL%/}
AWS_NITRO_ROOT_URL=${AWS_NITRO_ROOT_URL:-$DEFAULT_AWS_NITRO_ROOT_URL}
CA_BUNDLE_DEST=${CA_BUNDLE_DEST:-cacert.pem}
NITRO_ROOT_DEST=${NITRO_ROOT_DEST:-root.pem}
NOTARIZER_IMAGE=${NOTARIZER_IMAGE:-oracle-notarization-backend}
NITRO_CLI_IMAGE=${NITRO_CLI_IMAGE:-nitro-cli}
DOCKER_SOCKET=${DOCKER_SOCKET:-/var/run/docker.sock}
ORIG_PWD=$PWD

case "$ORACLE_REVISION" in
  -*) die "ORACLE_REVISION must not start with '-': $ORACLE_REVISION" ;;
esac
if ! [[ "$CA_CERT_DATE" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]]; then
  die "CA_CERT_DATE must look like YYYY-MM-DD, got: $CA_CERT_DATE"
fi
for dest in "$CA_BUNDLE_DEST" "$NITRO_ROOT_DEST"; do
  case "$dest" in
    /* | .. | ../* | */.. | */../*) die "CA_BUNDLE_DEST / NITRO_ROOT_DEST must be relative paths inside the source tree, got: $dest" ;;
  esac
done

missing=()
for tool in "${REQUIRED_TOOLS[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  die "missing prerequisite(s) on PATH: ${missing[*]}"
fi

if [ -z "${NITRO_CLI_DOCKERFILE:-}" ] && [ -f "$ORIG_PWD/Dockerfile.nitro" ]; then
  NITRO_CLI_DOCKERFILE=$ORIG_PWD/Dockerfile.nitro
fi
if [ -n "${NITRO_CLI_DOCKERFILE:-}" ]; then
  case "$NITRO_CLI_DOCKERFILE" in /*) ;; *) NITRO_CLI_DOCKERFILE=$ORIG_PWD/$NITRO_CLI_DOCKERFILE ;; esac
  [ -f "$NITRO_CLI_DOCKERFILE" ] || die "NITRO_CLI_DOCKERFILE does not exist: $NITRO_CLI_DOCKERFILE"
fi

# --- working directory (removed on exit) ---------------------------------------------------------
if [ -n "${TEMP_WD:-}" ]; then
  case "$TEMP_WD" in /*) ;; *) TEMP_WD=$ORIG_PWD/$TEMP_WD ;; esac
  if [ -e "$TEMP_WD" ]; then
    [ -d "$TEMP_WD" ] || die "TEMP_WD exists and is not a directory: $TEMP_WD"
    [ -z "$(ls -A -- "$TEMP_WD")" ] || die "TEMP_WD is not empty (it is deleted on exit, so it must be new or empty): $TEMP_WD"
  else
    mkdir -p -- "$TEMP_WD"
  fi
else
  TEMP_WD=$(mktemp -d -p "$ORIG_PWD" get-enclave-id.XXXXXXXX)
fi
cleanup() {
  cd / && rm -rf -- "$TEMP_WD"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR

# Everything below writes to standard error; the result goes to fd 3 (the original stdout).
exec 3>&1 1>&2

log "working directory: $TEMP_WD"
cd "$TEMP_WD"

# --- curl CA bundle --------------------------------------------------------------------------------
ca_file=cacert-$CA_CERT_DATE.pem
log "downloading $CA_BUNDLE_BASE_URL/$ca_file"
curl -fsSL --retry 3 -o "$ca_file" "$CA_BUNDLE_BASE_URL/$ca_file"
curl -fsSL --retry 3 -o "$ca_file.sha256" "$CA_BUNDLE_BASE_URL/$ca_file.sha256"
ca_expected=$(awk 'NR == 1 { print tolower($1) }' "$ca_file.sha256")
ca_actual=$(sha256sum -- "$ca_file" | awk '{ print $1 }')
[[ "$ca_expected" =~ ^[0-9a-f]{64}$ ]] || die "$ca_file.sha256 does not hold a SHA-256 value"
[ "$ca_actual" = "$ca_expected" ] || die "$ca_file has SHA-256 $ca_actual but $ca_file.sha256 says $ca_expected"
ca_count=$(openssl crl2pkcs7 -nocrl -certfile "$ca_file" | openssl pkcs7 -print_certs -noout | grep -c '^subject=' || true)
[ "$ca_count" -gt 0 ] || die "$ca_file holds no certificate"
log "CA bundle verified ($ca_count certificates)"

# --- AWS Nitro Enclaves root certificate -----------------------------------------------------------
root_zip=AWS_NitroEnclaves_Root-G1.zip
log "downloading $AWS_NITRO_ROOT_URL"
curl -fsSL --retry 3 -o "$root_zip" "$AWS_NITRO_ROOT_URL"
zip_actual=$(sha256sum -- "$root_zip" | awk '{ print $1 }')
[ "$zip_actual" = "$AWS_NITRO_ROOT_ZIP_SHA256" ] ||
  die "$root_zip has SHA-256 $zip_actual, expected $AWS_NITRO_ROOT_ZIP_SHA256"
mkdir nitro-root
unzip -q "$root_zip" root.pem -d nitro-root
log "AWS Nitro root: $(openssl x509 -in nitro-root/root.pem -noout -subject)"

# --- source ----------------------------------------------------------------------------------------
src=$TEMP_WD/oracle-notarization-backend
log "cloning $ORACLE_REPO at $ORACLE_REVISION"
git clone --quiet --recurse-submodules -- "$ORACLE_REPO" "$src"
git -C "$src" checkout --quiet "$ORACLE_REVISION" --
git -C "$src" submodule --quiet update --init --recursive
log "source commit: $(git -C "$src" rev-parse HEAD)"
mkdir -p -- "$(dirname -- "$src/$CA_BUNDLE_DEST")" "$(dirname -- "$src/$NITRO_ROOT_DEST")"
cp -- "$ca_file" "$src/$CA_BUNDLE_DEST"
cp -- nitro-root/root.pem "$src/$NITRO_ROOT_DEST"
cd "$src"

# --- SGX enclave (EGo) -----------------------------------------------------------------------------
exe=oracle-notarization-backend
if [ -f enclave.json ]; then
  configured=$(jq -r '.exe // empty' enclave.json)
  [ -z "$configured" ] || exe=$configured
fi
log "building the SGX enclave binary $exe"
ego-go build -trimpath -ldflags=-buildid= -o "$exe" .
ego sign
unique_id=$(ego uniqueid "$exe" | tail -n 1 | tr -d '[:space:]' | tr 'A-F' 'a-f')
[[ "$unique_id" =~ ^[0-9a-f]{64}$ ]] || die "ego uniqueid printed no 64-hex unique ID (got '$unique_id')"
log "SGX unique ID: $unique_id"

# --- Nitro enclave image (nitro-cli) ---------------------------------------------------------------
log "building docker image $NOTARIZER_IMAGE"
docker build --quiet -t "$NOTARIZER_IMAGE" .
if [ -n "${NITRO_CLI_DOCKERFILE:-}" ]; then
  log "building docker image $NITRO_CLI_IMAGE from $NITRO_CLI_DOCKERFILE"
  docker build --quiet -t "$NITRO_CLI_IMAGE" -f "$NITRO_CLI_DOCKERFILE" "$(dirname -- "$NITRO_CLI_DOCKERFILE")"
elif ! docker image inspect "$NITRO_CLI_IMAGE" >/dev/null 2>&1; then
  die "docker image $NITRO_CLI_IMAGE not found: build it or set NITRO_CLI_DOCKERFILE (see $PROG -h)"
fi
log "building the Nitro enclave image"
docker run --rm -v "$DOCKER_SOCKET:/var/run/docker.sock" "$NITRO_CLI_IMAGE" \
  nitro-cli build-enclave --docker-uri "$NOTARIZER_IMAGE" --output-file /tmp/enclave.eif >"$TEMP_WD/build-enclave.out"
# nitro-cli may print progress before its JSON result: keep from the first line opening an object.
sed -n '/^{/,$p' "$TEMP_WD/build-enclave.out" >"$TEMP_WD/build-enclave.json"
pcrs=()
for name in PCR0 PCR1 PCR2; do
  value=$(jq -r --arg k "$name" '.Measurements[$k] // empty' "$TEMP_WD/build-enclave.json" | tr 'A-F' 'a-f')
  [[ "$value" =~ ^[0-9a-f]{96}$ ]] || die "nitro-cli build-enclave gave no 96-hex .Measurements.$name (got '$value')"
  pcrs+=("$value")
  log "$name: $value"
done

printf 'Oracle SGX unique ID:\n%s\nOracle Nitro PCR:\n%s\n%s\n%s\n' \
  "$unique_id" "${pcrs[0]}" "${pcrs[1]}" "${pcrs[2]}" >&3
