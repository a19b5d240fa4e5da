/**
 * Renders the kustomizations of deploy/k8s with `kubectl kustomize` (the kustomize that kubectl
 * embeds; the files need kustomize 4.2 = kubectl 1.22 or later) and parses the objects. A render
 * that prints anything on stderr (a deprecation warning, …) fails.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const K8S_DIR = join(process.cwd(), 'deploy/k8s');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [k: string]: any;
}

/** Why the manifests cannot be rendered here (undefined when they can). */
export function kubectlUnavailable(): string | undefined {
  const r = spawnSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return 'kubectl is not installed (.ci/run installs it)';
  const v = JSON.parse(r.stdout).clientVersion as { major: string; minor: string; gitVersion: string };
  if (Number(v.major) === 1 && parseInt(v.minor, 10) < 22) return `kubectl ${v.gitVersion} embeds a kustomize older than 4.2, which cannot render deploy/k8s (kubectl ≥ 1.22; .ci/run installs one)`;
  return undefined;
}

/** `kubectl kustomize deploy/k8s/<dir>` parsed into its objects. */
export function render(dir: string): K8sObject[] {
  const r = spawnSync('kubectl', ['kustomize', join(K8S_DIR, dir)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  if (r.status !== 0 || r.stderr !== '') throw new Error(`kubectl kustomize ${dir} (exit ${r.status}): ${r.stderr}`);
  const text = r.stdout;
  return parseAllDocuments(text).map((d) => {
    if (d.errors.length) throw new Error(`${dir}: ${d.errors[0]!.message}`);
    return d.toJS() as K8sObject;
  });
}

export function find(objs: readonly K8sObject[], kind: string, name: string): K8sObject {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name} among ${objs.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return o;
}

/** The object a generated name (name-<hash>) or a plain name refers to. */
export function findGenerated(objs: readonly K8sObject[], kind: string, prefix: string): K8sObject {
  const o = objs.find((x) => x.kind === kind && (x.metadata.name === prefix || new RegExp(`^${prefix}-[a-z0-9]{10}$`).test(x.metadata.name)));
  if (!o) throw new Error(`no ${kind} generated as ${prefix}`);
  return o;
}

/** Kubelet's expansion of `$(VAR)` in a container's command and args (`$$(VAR)` stays literal). */
export function expandVars(s: string, env: Readonly<Record<string, string>>): string {
  return s.replace(/\$(\$)?\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, esc: string | undefined, name: string) => (esc ? `$(${name})` : env[name] ?? m));
}
