// Calls to rlworkbench's server extension (rlworkbench/lab/handlers.py), with the server's own auth.
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

export interface IRunRecord {
  id: string;
  name: string;
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
  logdir: string;
  logdir_in_root: string | null;
  checkpoint: string | null;
  submission_id: string | null;
  address: string | null;
  started: number;
  updated: number;
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
  runs: IRunRecord[];
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
}

/** A JSON request to `<base>/rlworkbench/<path>`; an Error with the server's reason otherwise. */
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
    throw new Error(`${response.status} ${reason}`);
  }
  return (text ? JSON.parse(text) : {}) as T;
}
