#!/bin/sh
# Refuses a cluster (or a kubectl) too old for deploy/k8s, before `kubectl apply -k` (README
# "Kubernetes"). The manifests need a Kubernetes server of 1.29 or later: the audit Jobs'
# backoffLimitPerIndex (beta, on by default, since 1.29) and podFailurePolicy (since 1.26); an
# older server drops fields it does not know without a word, and the Job then runs with other
# retry rules. The rest needs less (Indexed Jobs 1.24, policy/v1 1.21, autoscaling/v2 1.23).
# kubectl must be 1.22 or later (its kustomize renders the kustomizations).
#
# usage: scripts/k8s-preflight.sh [kubectl options, e.g. --context prod]
# exit:  0 both recent enough; 1 one is too old; 2 the versions could not be read
set -u

MIN_SERVER_MINOR=29
MIN_CLIENT_MINOR=22

if ! command -v kubectl >/dev/null 2>&1; then
  echo "k8s-preflight: kubectl not found on PATH" >&2
  exit 2
fi

err_file=$(mktemp)
trap 'rm -f "$err_file"' EXIT
# Exits non-zero when the server cannot be reached, still printing the client's version.
json=$(kubectl version -o json "$@" 2>"$err_file")

# One JSON token per line, so that awk can read `"key": "value"` pairs (kubectl prints them
# indented one per line; this also reads the same document printed on one line).
lines=$(printf '%s\n' "$json" | tr -d '\n' | awk '{ gsub(/[{]/, "{\n"); gsub(/[}]/, "\n}\n"); gsub(/,/, ",\n"); print }')

# field OBJECT KEY: the string value of KEY in the object named OBJECT ("" when absent).
field() {
  printf '%s\n' "$lines" | awk -v obj="\"$1\"" -v key="\"$2\"" '
    index($0, obj) { inside = 1; next }
    inside && /}/ { exit }
    inside && index($0, key) { sub(/^[^:]*: *"/, ""); sub(/".*$/, ""); print; exit }'
}

# check WHAT OBJECT MIN_MINOR: 0 recent enough, 1 too old, 2 unreadable.
check() {
  what=$1
  major=$(field "$2" major)
  minor=$(field "$2" minor | tr -cd '0-9') # "29+" on some managed clusters
  version=$(field "$2" gitVersion)
  if [ -z "$major" ] || [ -z "$minor" ]; then
    return 2
  fi
  if [ "$major" -lt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -lt "$3" ]; }; then
    echo "k8s-preflight: $what ${version:-$major.$minor} is older than 1.$3, which deploy/k8s needs" >&2
    return 1
  fi
  echo "k8s-preflight: $what ${version:-$major.$minor} (1.$3 or later: fine)"
  return 0
}

check "kubectl" clientVersion "$MIN_CLIENT_MINOR"
client=$?
if [ "$client" -eq 2 ]; then
  echo "k8s-preflight: cannot read kubectl's version from \`kubectl version -o json\`" >&2
  exit 2
fi
check "Kubernetes server" serverVersion "$MIN_SERVER_MINOR"
server=$?
if [ "$server" -eq 2 ]; then
  echo "k8s-preflight: cannot read the Kubernetes server's version (kubectl version -o json: $(tr '\n' ' ' <"$err_file"| sed 's/ *$//'))" >&2
  exit 2
fi
if [ "$server" -eq 1 ]; then
  echo "k8s-preflight: an older server silently drops the audit Jobs' backoffLimitPerIndex and podFailurePolicy: upgrade the cluster to 1.$MIN_SERVER_MINOR or later" >&2
fi
if [ "$client" -ne 0 ] || [ "$server" -ne 0 ]; then
  exit 1
fi
exit 0
