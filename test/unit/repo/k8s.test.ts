/**
 * deploy/k8s: the base, the example overlay and the audit Jobs render with `kubectl kustomize`,
 * every object is valid against the Kubernetes schemas (kubernetes-models), and the objects are
 * wired together (probes, selectors, mounts, Secrets, HPA target, Service, PCCS URL, sizing).
 * The Indexed Job itself is run in test/e2e/k8s-reverify-job.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { resolveConfig } from '../../../src/config/load.js';
import { find, findGenerated, K8S_DIR, kubectlUnavailable, render, type K8sObject } from '../../support/kustomize.js';

const MODELS: Record<string, new (o: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'batch/v1/Job': Job,
};

const DIRS = ['base', 'overlays/example', 'audit', 'audit/merge', 'audit/completeness', 'overlays/example/audit', 'overlays/example/audit-merge', 'overlays/example/audit-completeness'];
/** Where the claims of a kustomization that makes none come from. */
const CLAIMS_FROM: Record<string, string> = {
  'audit/merge': 'audit',
  'audit/completeness': 'audit',
  'overlays/example/audit-merge': 'overlays/example/audit',
  'overlays/example/audit-completeness': 'overlays/example/audit',
};
/** Secrets the operator creates (docs/operations.md "Kubernetes"); every other reference must be rendered. */
const OPERATOR_SECRETS = ['pccs-api-key', 'pccs-tls', 'verifier-example-tls', 'ledger-node-jwt'];
/** bench/memory.ts (BENCHMARKS.md, "Peak memory"): the highest /decodeReport peak and the highest peak of any scenario, MiB. */
const MEASURED_LOAD_MIB = 234;
const MEASURED_PEAK_MIB = 285;
const root = process.cwd();
const read = (p: string) => readFileSync(join(root, p), 'utf8');

const unavailable = kubectlUnavailable();
if (unavailable) console.warn(`test/unit/repo/k8s.test.ts skipped: ${unavailable}`);

/** Pod templates of the workloads, with their owner. */
function podTemplates(objs: readonly K8sObject[]): { owner: K8sObject; template: any }[] {
  return objs.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind)).map((owner) => ({ owner, template: owner.spec.template }));
}
const selects = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const mib = (q: string) => {
  const m = /^(\d+)(Mi|Gi)$/.exec(q);
  if (!m) throw new Error(`quantity ${q}`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
};
const cpu = (q: string) => (q.endsWith('m') ? Number(q.slice(0, -1)) / 1000 : Number(q));


// Under CI=true a missing tool fails, never skips (CI can never pass by skipping).
it.runIf(process.env.CI === 'true' && unavailable !== undefined)('kubectl ≥ 1.22 is available (CI=true)', () => {
  expect(unavailable).toBeUndefined();
});
describe.skipIf(unavailable !== undefined)('Kubernetes manifests (deploy/k8s)', () => {
  // Rendered only where kubectl can (a skipped block's body is still run to collect its tests).
  const rendered = (unavailable === undefined ? Object.fromEntries(DIRS.map((d) => [d, render(d)])) : {}) as Record<string, K8sObject[]>;
  const base = rendered['base']!;

  it('every object of every kustomization is valid against the Kubernetes schemas', () => {
    for (const [dir, objs] of Object.entries(rendered)) {
      expect(objs.length, dir).toBeGreaterThan(0);
      for (const o of objs) {
        const Model = MODELS[`${o.apiVersion}/${o.kind}`];
        expect(Model, `${dir}: no schema model for ${o.apiVersion} ${o.kind}`).toBeDefined();
        expect(() => new Model!(o).validate(), `${dir}: ${o.kind}/${o.metadata.name}`).not.toThrow();
      }
    }
  });

  it("every config.json a ConfigMap carries is a valid verifier config", () => {
    const configs = DIRS.flatMap((d) => rendered[d]!.filter((o) => o.kind === 'ConfigMap' && o.data?.['config.json']).map((o) => ({ where: `${d}: ${o.metadata.name}`, text: o.data['config.json'] })));
    expect(configs.length).toBeGreaterThanOrEqual(5);
    for (const c of configs) expect(() => resolveConfig(JSON.parse(c.text), '/app', c.where), c.where).not.toThrow();
    expect(() => resolveConfig({ ...JSON.parse(configs[0]!.text), workers: '2' }, '/app')).toThrow(/workers/);
  });

  it('the schema check catches a broken object (a probe port of the wrong type)', () => {
    const d = structuredClone(find(base, 'Deployment', 'oracle-verifier'));
    d.spec.template.spec.containers[0].readinessProbe.httpGet.port = { name: 'http' };
    expect(() => new Deployment(d as any).validate()).toThrow(/port/);
  });

  it('wiring: selectors match pod labels, mounts name volumes, ConfigMaps and Secrets exist, probes name ports', () => {
    for (const [dir, objs] of Object.entries(rendered)) {
      const configMaps = new Set(objs.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name));
      const secrets = new Set([...objs.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name), ...OPERATOR_SECRETS]);
      const claims = new Set(objs.filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => o.metadata.name));
      for (const { owner, template } of podTemplates(objs)) {
        const where = `${dir}: ${owner.kind}/${owner.metadata.name}`;
        if (owner.kind !== 'Job') expect(selects(owner.spec.selector.matchLabels, template.metadata.labels), where).toBe(true);
        const vcts = new Set((owner.spec.volumeClaimTemplates ?? []).map((v: any) => v.metadata.name));
        const volumes = new Map<string, any>((template.spec.volumes ?? []).map((v: any) => [v.name, v]));
        for (const v of volumes.values()) {
          if (v.configMap) expect(configMaps.has(v.configMap.name), `${where}: ConfigMap ${v.configMap.name}`).toBe(true);
          if (v.secret) expect(secrets.has(v.secret.secretName), `${where}: Secret ${v.secret.secretName}`).toBe(true);
          if (v.persistentVolumeClaim) {
            // The merge Job's claim comes from the audit kustomization applied before it.
            const from = CLAIMS_FROM[dir];
            const known = claims.has(v.persistentVolumeClaim.claimName) || (from !== undefined && rendered[from]!.some((o) => o.kind === 'PersistentVolumeClaim' && o.metadata.name === v.persistentVolumeClaim.claimName));
            expect(known, `${where}: claim ${v.persistentVolumeClaim.claimName}`).toBe(true);
          }
        }
        for (const c of template.spec.containers) {
          for (const m of c.volumeMounts ?? []) expect(volumes.has(m.name) || vcts.has(m.name), `${where}: mount ${m.name}`).toBe(true);
          for (const e of c.env ?? []) {
            const ref = e.valueFrom?.secretKeyRef;
            if (ref) expect(secrets.has(ref.name), `${where}: secretKeyRef ${ref.name}`).toBe(true);
          }
          for (const e of c.envFrom ?? []) if (e.configMapRef) expect(configMaps.has(e.configMapRef.name), `${where}: envFrom ${e.configMapRef.name}`).toBe(true);
          const ports = new Set((c.ports ?? []).map((p: any) => p.name));
          for (const probe of [c.readinessProbe, c.livenessProbe].filter(Boolean)) {
            const port = probe.httpGet?.port ?? probe.tcpSocket?.port;
            expect(typeof port === 'number' || ports.has(port), `${where}: probe port ${port}`).toBe(true);
          }
        }
      }
      // Every Service selects the pods of some workload and targets one of their named ports.
      for (const s of objs.filter((o) => o.kind === 'Service')) {
        const pods = podTemplates(objs).filter(({ template }) => selects(s.spec.selector, template.metadata.labels));
        expect(pods.length, `${dir}: Service ${s.metadata.name} selects no pods`).toBe(1);
        const names = pods[0]!.template.spec.containers.flatMap((c: any) => (c.ports ?? []).map((p: any) => p.name));
        for (const p of s.spec.ports) expect(names, `${dir}: Service ${s.metadata.name}`).toContain(p.targetPort);
      }
      // Ingress backends, HPA and PDB targets exist.
      for (const ing of objs.filter((o) => o.kind === 'Ingress')) {
        for (const r of ing.spec.rules) for (const p of r.http.paths) find(objs, 'Service', p.backend.service.name);
      }
      for (const h of objs.filter((o) => o.kind === 'HorizontalPodAutoscaler')) find(objs, h.spec.scaleTargetRef.kind, h.spec.scaleTargetRef.name);
      for (const p of objs.filter((o) => o.kind === 'PodDisruptionBudget')) {
        expect(podTemplates(objs).some(({ template }) => selects(p.spec.selector.matchLabels, template.metadata.labels)), `${dir}: PDB ${p.metadata.name}`).toBe(true);
      }
    }
  });

  it('every Service port and container port names protocol TCP (server-side apply keys ports by port and protocol)', () => {
    const missing: string[] = [];
    let ports = 0;
    for (const [dir, objs] of Object.entries(rendered)) {
      for (const s of objs.filter((o) => o.kind === 'Service')) {
        for (const p of s.spec.ports) {
          ports++;
          if (p.protocol !== 'TCP') missing.push(`${dir}: Service ${s.metadata.name} port ${p.name ?? p.port}`);
        }
      }
      for (const { owner, template } of podTemplates(objs)) {
        for (const c of template.spec.containers) {
          for (const p of c.ports ?? []) {
            ports++;
            if (p.protocol !== 'TCP') missing.push(`${dir}: ${owner.kind}/${owner.metadata.name} container ${c.name} port ${p.name ?? p.containerPort}`);
          }
        }
      }
    }
    expect(ports).toBeGreaterThanOrEqual(12);
    expect(missing).toEqual([]);
  });

  it('requests and limits: every container has CPU and memory requests and limits, all written in one file (deploy/k8s/sizing)', () => {
    for (const [dir, objs] of Object.entries(rendered)) {
      for (const { owner, template } of podTemplates(objs)) {
        for (const c of template.spec.containers) {
          const where = `${dir}: ${owner.kind}/${owner.metadata.name} ${c.name}`;
          for (const k of ['requests', 'limits']) for (const r of ['cpu', 'memory']) expect(c.resources?.[k]?.[r], `${where} ${k}.${r}`).toBeDefined();
          expect(mib(c.resources.limits.memory), where).toBeGreaterThanOrEqual(mib(c.resources.requests.memory));
          expect(cpu(c.resources.limits.cpu), where).toBeGreaterThanOrEqual(cpu(c.resources.requests.cpu));
        }
      }
    }
    // No other file of deploy/k8s writes a quantity of memory or CPU for a container.
    const files = readdirSync(K8S_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => /\.ya?ml$/.test(f));
    const sizing = join('sizing', 'kustomization.yaml');
    expect(files).toContain(sizing);
    const elsewhere = files.filter((f) => f !== sizing && /^\s+(memory|cpu):\s*\S/m.test(readFileSync(join(K8S_DIR, f), 'utf8')));
    expect(elsewhere).toEqual([]);
    // The base and the three audit kustomizations take the component.
    for (const dir of ['base', 'audit', 'audit/merge', 'audit/completeness']) {
      const k = read(`deploy/k8s/${dir}/kustomization.yaml`);
      expect(k, dir).toMatch(/^components:\n  - (\.\.\/)+sizing$/m);
    }
  });

  it('the wiring check catches a Service that selects nothing', () => {
    const s = structuredClone(find(base, 'Service', 'oracle-verifier'));
    s.spec.selector['app.kubernetes.io/component'] = 'verifer';
    expect(podTemplates(base).some(({ template }) => selects(s.spec.selector, template.metadata.labels))).toBe(false);
  });

  it('verifier: probes, config at /app/config.json, sizing from measured memory, non-root read-only, grace > drain, HPA, PDB', () => {
    for (const dir of ['base', 'overlays/example']) {
      const objs = rendered[dir]!;
      const d = find(objs, 'Deployment', 'oracle-verifier');
      const pod = d.spec.template.spec;
      const [c] = pod.containers;
      expect(c.readinessProbe.httpGet.path).toBe('/readyz');
      expect(c.livenessProbe.httpGet.path).toBe('/healthz');
      expect(c.args).toEqual(['--config', '/app/config.json']);
      expect(c.command).toBeUndefined(); // the image's ENTRYPOINT (node dist/src/main.js)
      const mount = c.volumeMounts.find((m: any) => m.mountPath === '/app/config.json');
      expect(mount.subPath).toBe('config.json');
      const cm = find(objs, 'ConfigMap', pod.volumes.find((v: any) => v.name === mount.name).configMap.name);
      const config = JSON.parse(cm.data['config.json']);
      expect(config).toEqual({ ...JSON.parse(read('deploy/config.json')), workers: 2 });
      expect(config.workers).toBe(cpu(c.resources.limits.cpu));
      // Measured (bench/memory.ts, BENCHMARKS.md): ≈ 135 MiB idle, peak up to 285 MiB under 300
      // connections with 2 workers: the limit leaves headroom above the peak.
      expect(mib(c.resources.requests.memory)).toBeGreaterThanOrEqual(MEASURED_LOAD_MIB);
      expect(mib(c.resources.limits.memory)).toBeGreaterThanOrEqual(1.2 * MEASURED_PEAK_MIB);
      expect(mib(c.resources.limits.memory)).toBeLessThanOrEqual(2 * MEASURED_PEAK_MIB);
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBe(1000); // the image's `node` user
      expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      const tmp = c.volumeMounts.find((m: any) => m.mountPath === '/tmp');
      expect(pod.volumes.find((v: any) => v.name === tmp.name).emptyDir).toBeDefined();
      // The process exits at the latest shutdownGraceMs after SIGTERM; preStop's sleep comes first.
      const forced = resolveConfig(config, '/app').shutdownGraceMs / 1000;
      const preStop = Number(c.lifecycle.preStop.exec.command[1]);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(preStop + forced);
      const hpa = find(objs, 'HorizontalPodAutoscaler', 'oracle-verifier');
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'oracle-verifier' });
      expect(hpa.spec.metrics.map((m: any) => m.resource.name)).toEqual(['cpu']);
      expect(d.spec.replicas).toBeUndefined(); // the HPA owns the replica count
      expect(selects(find(objs, 'PodDisruptionBudget', 'oracle-verifier').spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
    }
    expect(find(rendered['overlays/example']!, 'Ingress', 'oracle-verifier').spec.rules[0].http.paths[0].backend.service.name).toBe('oracle-verifier');
  });

  it('watcher: one replica, watch.enabled, its database on the volume claim template', () => {
    const s = find(base, 'StatefulSet', 'ledger-watcher');
    expect(s.spec.replicas).toBe(1);
    const pod = s.spec.template.spec;
    const cm = find(base, 'ConfigMap', pod.volumes.find((v: any) => v.configMap).configMap.name);
    const config = JSON.parse(cm.data['config.json']);
    expect(config.watch.enabled).toBe(true);
    expect(config).toEqual({ ...JSON.parse(read('deploy/config-watch.json')), workers: 1 });
    expect(config.workers).toBe(cpu(pod.containers[0].resources.limits.cpu));
    expect(mib(pod.containers[0].resources.limits.memory)).toBeGreaterThanOrEqual(1.2 * MEASURED_PEAK_MIB);
    const dataMount = pod.containers[0].volumeMounts.find((m: any) => config.watch.database.startsWith(`${m.mountPath}/`));
    expect(s.spec.volumeClaimTemplates.map((v: any) => v.metadata.name)).toEqual([dataMount.name]);
    expect(pod.securityContext.fsGroup).toBe(1000);
    expect(pod.containers[0].securityContext.readOnlyRootFilesystem).toBe(true);
    expect(find(base, 'Service', s.spec.serviceName)).toBeDefined();
  });

  it('PCCS: API_KEY and optional ADMINPASS from a Secret; every pccsUrl points at its Service', () => {
    const env = find(base, 'Deployment', 'pccs').spec.template.spec.containers[0].env;
    const byName = Object.fromEntries(env.map((e: any) => [e.name, e]));
    expect(byName.API_KEY.valueFrom.secretKeyRef).toEqual({ name: 'pccs-api-key', key: 'API_KEY' });
    expect(byName.ADMINPASS.valueFrom.secretKeyRef).toEqual({ name: 'pccs-api-key', key: 'ADMINPASS', optional: true });
    const svc = find(base, 'Service', 'pccs');
    for (const objs of [base, rendered['audit']!]) {
      for (const cm of objs.filter((o) => o.kind === 'ConfigMap' && o.data?.['config.json'])) {
        const url = new URL(JSON.parse(cm.data['config.json']).pccsUrl);
        expect(url.hostname, cm.metadata.name).toBe(svc.metadata.name);
        expect(Number(url.port), cm.metadata.name).toBe(svc.spec.ports[0].port);
      }
    }
    // docs/operations.md (Kubernetes) names the commands that make the operator's Secrets.
    const ops = read('docs/operations.md');
    for (const s of ['pccs-api-key', 'pccs-tls']) expect(ops).toMatch(new RegExp(`kubectl (-n \\S+ )?create secret generic ${s} `));
  });

  it('Prometheus: every long-running pod is scraped on its /metrics; alert rules and dashboard are ConfigMaps equal to their sources', () => {
    for (const { owner, template } of podTemplates(base)) {
      if (owner.metadata.name === 'pccs') continue; // Intel's PCCS has no /metrics
      if (owner.metadata.name === 'alertmanager') continue; // not a verifier: what the alerts go to
      expect(template.metadata.annotations, owner.metadata.name).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics', 'prometheus.io/port': '8080' });
    }
    for (const f of ['ledger.rules.yml', 'resources.rules.yml', 'targets.rules.yml', 'verifier.rules.yml']) expect(findGenerated(base, 'ConfigMap', 'oracle-verifier-alerts').data[f]).toBe(read(`deploy/alerts/${f}`));
    expect(findGenerated(base, 'ConfigMap', 'alertmanager-config').data['alertmanager.yml']).toBe(read('deploy/alertmanager.yml'));
    expect(findGenerated(base, 'ConfigMap', 'oracle-verifier-dashboard').data['verifier.json']).toBe(read('grafana/dashboards/verifier.json'));
    // docker-compose.yml runs the PCCS with the same entry point the ConfigMap carries.
    expect(read('docker-compose.yml')).toMatch(/- \.\/deploy\/k8s\/base\/pccs\/entrypoint\.sh:\/pccs-entrypoint\.sh:ro/);
    expect(findGenerated(base, 'ConfigMap', 'pccs-entrypoint').data['entrypoint.sh']).toBe(read('deploy/k8s/base/pccs/entrypoint.sh'));
  });

  it('the audit: N written once (SHARDS) = completions = parallelism = the shard count = the merge inputs; from 0 to the tip pinned at start; merge, then completeness, over the same range and records', () => {
    for (const [auditDir, mergeDir, checkDir] of [['audit', 'audit/merge', 'audit/completeness'], ['overlays/example/audit', 'overlays/example/audit-merge', 'overlays/example/audit-completeness']] as const) {
      const job = find(rendered[auditDir]!, 'Job', 'reverify-shards');
      const range = findGenerated(rendered[auditDir]!, 'ConfigMap', 'reverify-range');
      const n = Number(range.data.SHARDS);
      expect(n).toBeGreaterThan(1);
      expect(job.spec.completionMode).toBe('Indexed');
      expect(job.spec.completions).toBe(n);
      expect(job.spec.parallelism).toBe(n);
      // The whole chain: from 0, and no end height written anywhere: the tip, read at start and pinned.
      expect(range.data.FROM_HEIGHT).toBe('0');
      expect(Object.keys(range.data).sort()).toEqual(['FROM_HEIGHT', 'LEDGER_NODE', 'RPS', 'SHARDS']);
      const [c] = job.spec.template.spec.containers;
      expect(c.command).toEqual(['oracle-verifier']);
      expect(c.args[0]).toBe('reverify');
      expect(c.args).not.toContain('--to');
      const endFile = c.args[c.args.indexOf('--to-file') + 1] as string;
      expect(endFile).toMatch(/^\/results\//);
      expect(c.args[c.args.indexOf('--shard') + 1]).toBe('$(JOB_COMPLETION_INDEX)/$(SHARDS)');
      expect(c.envFrom.map((e: any) => e.configMapRef.name)).toEqual([range.metadata.name]);
      // The CLI's malloc arenas bounded (its RSS at the default concurrency), set where the process starts.
      expect(c.env).toContainEqual({ name: 'MALLOC_ARENA_MAX', value: '2' });
      const out = c.args[c.args.indexOf('--out') + 1] as string;
      // Step 2: merge the N outputs, with the same ConfigMaps (same content, same generated names).
      const mergeObjs = rendered[mergeDir]!;
      expect(findGenerated(mergeObjs, 'ConfigMap', 'reverify-range')).toEqual(range);
      expect(findGenerated(mergeObjs, 'ConfigMap', 'reverify-config')).toEqual(findGenerated(rendered[auditDir]!, 'ConfigMap', 'reverify-config'));
      const merge = find(mergeObjs, 'Job', 'reverify-merge').spec.template.spec.containers[0];
      expect(merge.command).toEqual(['oracle-verifier']);
      expect(merge.args.slice(0, 3)).toEqual(['merge', merge.args[1], out.replace('$(JOB_COMPLETION_INDEX)', '{i}')]);
      expect(merge.args[merge.args.indexOf('--shards') + 1]).toBe('$(SHARDS)');
      // Only complete shards of one scan are merged: their checkpoints, as the shards write them.
      expect(merge.args[merge.args.indexOf('--checkpoints') + 1]).toBe((c.args[c.args.indexOf('--checkpoint') + 1] as string).replace('$(JOB_COMPLETION_INDEX)', '{i}'));
      expect(merge.envFrom.map((e: any) => e.configMapRef.name)).toEqual([range.metadata.name]);
      // Step 3: the completeness check of the merged records over the audit's range.
      const checkObjs = rendered[checkDir]!;
      expect(findGenerated(checkObjs, 'ConfigMap', 'reverify-range')).toEqual(range);
      const check = find(checkObjs, 'Job', 'reverify-completeness').spec.template.spec.containers[0];
      expect(check.command).toEqual(['sh', '-c']);
      const script = check.args[0] as string;
      expect(script).toMatch(/^exec oracle-verifier completeness /);
      expect(script).toContain(`--records ${merge.args[1]} `);
      expect(script).toContain('--from "$FROM_HEIGHT" ');
      expect(script).toContain(`--to "$(cat ${endFile})" `);
      expect(script).toContain('--node "$LEDGER_NODE" ');
      expect(check.env.find((e: any) => e.name === 'LEDGER_NODE_JWT').valueFrom.secretKeyRef).toMatchObject({ name: 'ledger-node-jwt', optional: true });
      expect(job.spec.template.spec.restartPolicy).toBe('Never');
    }
    // The inputs component is the one file that writes N: the Job carries a placeholder.
    const files = readdirSync(join(K8S_DIR, 'audit'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.ya?ml$/.test(f));
    expect(files.filter((f) => /SHARDS=\d/.test(readFileSync(join(K8S_DIR, 'audit', f), 'utf8')))).toEqual([join('inputs', 'kustomization.yaml')]);
  });

  it('changing SHARDS in deploy/k8s/audit/inputs alone changes completions, parallelism and the merge', () => {
    const copy = mkdtempSync(join(tmpdir(), 'k8s-shards-'));
    try {
      cpSync(K8S_DIR, copy, { recursive: true });
      const inputs = join(copy, 'audit', 'inputs', 'kustomization.yaml');
      writeFileSync(inputs, readFileSync(inputs, 'utf8').replace(/SHARDS=\d+/, 'SHARDS=7'));
      const objs = (dir: string) => {
        const r = spawnSync('kubectl', ['kustomize', join(copy, dir)], { encoding: 'utf8', maxBuffer: 64 << 20 });
        expect(r.stderr).toBe('');
        return parseAllDocuments(r.stdout).map((d) => d.toJS() as K8sObject);
      };
      const job = find(objs('audit'), 'Job', 'reverify-shards');
      expect([job.spec.completions, job.spec.parallelism]).toEqual([7, 7]);
      expect(findGenerated(objs('audit/merge'), 'ConfigMap', 'reverify-range').data.SHARDS).toBe('7');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('the Dockerfile is multi-stage, runs as the non-root node user, and provides the commands the manifests call', () => {
    const docker = read('Dockerfile');
    const stages = [...docker.matchAll(/^FROM \S+(?: AS (\S+))?$/gm)];
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(docker).toMatch(/^COPY --from=build /m);
    const finalStage = docker.slice(stages.at(-1)!.index);
    expect(finalStage).toMatch(/^USER node$/m);
    const entry = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(finalStage)![1]!) as string[];
    const pkg = JSON.parse(read('package.json'));
    // The Deployment and StatefulSet call the ENTRYPOINT (the server) with their args.
    expect(entry).toEqual(['node', pkg.bin['oracle-verifier-server']]);
    // The Jobs call `oracle-verifier`: a link on the PATH to the package's bin of that name.
    const links = new Map([...finalStage.matchAll(/ln -s \/app\/(\S+) \/usr\/local\/bin\/(\S+)/g)].map((m) => [m[2]!, m[1]!]));
    const ours = (c: any) => /(^|\/)oracle-verifier(:|$)/.test(c.image);
    const containers = DIRS.flatMap((d) => podTemplates(rendered[d]!)).flatMap(({ template }) => template.spec.containers.filter(ours));
    expect(containers.length).toBeGreaterThan(4);
    // A shell step (the completeness check reads the pinned end height) execs the command.
    const called = new Set(containers.map((c: any) => (c.command?.[0] === 'sh' ? /^exec (\S+) /.exec(c.args[0])?.[1] : c.command?.[0])).filter(Boolean));
    expect([...called]).toEqual(['oracle-verifier']);
    for (const cmd of called) {
      expect(links.get(cmd), cmd).toBe(pkg.bin[cmd]);
      expect(finalStage).toMatch(new RegExp(`chmod 755 [^\\n]*${pkg.bin[cmd].replace(/[./]/g, '\\$&')}`));
      // The linked file runs as a script: its source starts with a node shebang.
      expect(read(pkg.bin[cmd].replace(/^dist\//, '').replace(/\.js$/, '.ts')).startsWith('#!/usr/bin/env node\n')).toBe(true);
    }
    // The image's user is the uid the pods run as (node:20 images: node = 1000).
    expect(find(base, 'Deployment', 'oracle-verifier').spec.template.spec.securityContext.runAsUser).toBe(1000);
  });

  it('the copies kustomize reads (it reads no file outside its directory) equal their sources', () => {
    for (const f of ['ledger.rules.yml', 'resources.rules.yml', 'targets.rules.yml', 'verifier.rules.yml']) expect(read(`deploy/k8s/base/monitoring/alerts/${f}`)).toBe(read(`deploy/alerts/${f}`));
    expect(read('deploy/k8s/base/monitoring/alertmanager/alertmanager.yml')).toBe(read('deploy/alertmanager.yml'));
    expect(read('deploy/k8s/base/monitoring/dashboard/verifier.json')).toBe(read('grafana/dashboards/verifier.json'));
    expect(K8S_DIR).toBe(join(root, 'deploy/k8s'));
  });
});
