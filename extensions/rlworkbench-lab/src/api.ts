// Calls to rlworkbench's server extension (rlworkbench/lab/handlers.py), with the server's own auth.
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

export interface IRunRecord {
  id: string;
  name: string;
  config_label?: string; // the config as a person knows it (shipped name, file stem, or `type #digest`)
  source?: string | null; // the notebook or script that started the run (absolute path)
  source_in_root?: string | null; // the same, relative to this server's root; null when outside it
  phase?: string | null; // what a run not yet training is busy with: "starting Ray … 8 s"
  env: string;
  backend: string;
  target: string;
  devices: string[] | null;
  state: string;
  error: string | null;
  timesteps: number;
  total_timesteps: number;
  steps_per_second: number | null;
  episodes: number;
  recent_return: number | null;
  returns: (number | null)[];
  logdir: string; // absolute
  logdir_in_root: string | null; // relative to this server's root; null when the folder is outside it
  checkpoint: string | null;
  submission_id: string | null;
  address: string | null;
  started: number;
  updated: number;
  labels?: { experiment?: string; trial?: string; seed?: number; params?: { [path: string]: unknown } };
  experiment?: string | null; // the experiment whose trial this run is; null (or absent) for a plain run
}

/** An experiment's own record (rlworkbench/workbench/experiments/publication.py). */
export interface IExperimentRecord {
  kind: 'experiment';
  id: string;
  name: string;
  state: string;
  error: string | null;
  metric: string;
  counts: { [state: string]: number };
  best_trial: string | null;
  best: number | null;
  trials: IExperimentTrial[];
  seeds: number[];
  budget: number;
  scheduler: string | null;
  directory: string;
  directory_in_root: string | null;
  address: string | null;
  submission_id: string | null;
  started: number;
  updated: number;
}

export interface IExperimentTrial {
  trial: string;
  params: { [path: string]: unknown };
  state: string;
  timesteps: number;
  value: number | null;
}

export interface IClusterRow {
  submission_id: string;
  config: string;
  env: string;
  target: string;
  workers: number;
  state: string;
  timesteps: number;
  total_timesteps: number;
  return: number | null;
  started: string | null;
}

export interface IRunsReply {
  runs: IRunRecord[]; // plain runs and experiments' trial runs
  experiments: IExperimentRecord[];
  cluster: { address: string; runs: IClusterRow[]; error: string | null } | null;
}

export interface IComponentDetails {
  class: string;
  path: string;
  device: string | null;
  resolved_device: string | null;
  built: boolean;
  backend: string | null;
  variables: number;
  values: number;
  api: { api_method: string; inputs: string; outputs: string }[];
}

export interface IGraphReply {
  svg: string;
  title: string;
  components: { [path: string]: IComponentDetails };
  api_methods: string[];
  error: string | null;
  max_depth: number; // of the component tree below the drawn component
}

export interface ICompareRun {
  id: string;
  label: string;
  name: string | null;
  env: string | null;
  state: string | null;
  experiment: string | null;
  trial: string | null;
  seed: number | null;
  curve: [number, number][]; // [env steps, return] per episode
  source: 'episodes.csv' | 'record';
  config: { [key: string]: unknown };
}

export interface ICompareReply {
  runs: ICompareRun[];
  diff: { path: string; values: { [runId: string]: unknown } }[]; // a run without the path has no value
}

/** A refused request: the HTTP status and the server's reason (the message reads `<status> <reason>`). */
export class APIError extends Error {
  constructor(readonly status: number, readonly reason: string) {
    super(`${status} ${reason}`);
  }
}

/** A JSON request to `<base>/rlworkbench/<path>`; an APIError with the server's reason otherwise. */
export async function requestAPI<T>(path: string, init: RequestInit = {}): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, 'rlworkbench', path);
  const response = await ServerConnection.makeRequest(url, init, settings);
  const text = await response.text();
  if (!response.ok) {
    let reason = response.statusText;
    try {
      const body = JSON.parse(text);
      reason = body.reason || body.message || reason;
    } catch {
      // not JSON: keep the status text
    }
    throw new APIError(response.status, reason);
  }
  return (text ? JSON.parse(text) : {}) as T;
}
