#!/bin/sh
# Refreshes the copies deploy/k8s/base reads (kustomize reads no file outside its directory) from
# their sources; test/unit/repo/k8s.test.ts fails while they differ.
set -eu
cd "$(dirname "$0")/.."
cp deploy/alerts/ledger.rules.yml deploy/alerts/resources.rules.yml deploy/alerts/targets.rules.yml deploy/alerts/verifier.rules.yml deploy/k8s/base/monitoring/alerts/
cp deploy/alertmanager.yml deploy/k8s/base/monitoring/alertmanager/alertmanager.yml
cp grafana/dashboards/verifier.json deploy/k8s/base/monitoring/dashboard/verifier.json
