// rlworkbench in JupyterLab: the runs panel (left sidebar), the component-graph viewer ("Open With → Component
// graph" on a .json config, and "Graph" on a run), the compare view (runs ticked in the panel → Compare) and a Ray
// run's live dataflow ("Dataflow" on its card). Data comes from rlworkbench's server extension.
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { MainAreaWidget, Notification } from '@jupyterlab/apputils';
import { ABCWidgetFactory, DocumentRegistry, DocumentWidget, IDocumentWidget } from '@jupyterlab/docregistry';
import { Contents } from '@jupyterlab/services';
import { IFrame, LabIcon } from '@jupyterlab/ui-components';
import { requestAPI, IRunRecord } from './api';
import { CompareView } from './compareView';
import { DataflowPanel } from './dataflowPanel';
import { followFile } from './graphFollow';
import { GraphView } from './graphView';
import { configLabel } from './runCard';
import { RunsPanel } from './runsPanel';

const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><g class="jp-icon3" fill="#616161">
<circle cx="5" cy="6" r="2.5"/><circle cx="19" cy="6" r="2.5"/><circle cx="12" cy="18" r="2.5"/>
<path d="M6.6 7.6l4.2 8.2 1.3-.7-4.2-8.2zM17.4 7.6l-4.2 8.2-1.3-.7 4.2-8.2zM7.5 5.3h9v1.4h-9z"/></g></svg>`;
export const rlworkbenchIcon = new LabIcon({ name: 'rlworkbench-lab:icon', svgstr: ICON_SVG });
export const FACTORY = 'Component graph';
const OPEN_GRAPH = 'rlworkbench:open-graph';
const OPEN_COMPARE = 'rlworkbench:open-compare';
const OPEN_DATAFLOW = 'rlworkbench:open-dataflow';

class GraphViewerFactory extends ABCWidgetFactory<IDocumentWidget<GraphView>> {
  constructor(options: DocumentRegistry.IWidgetFactoryOptions<IDocumentWidget<GraphView>>,
    private contents: Contents.IManager) {
    super(options);
  }

  protected createNewWidget(context: DocumentRegistry.Context): IDocumentWidget<GraphView> {
    const content = new GraphView({ path: context.path });
    followFile(content, context, this.contents); // redrawn when the file is saved
    const widget = new DocumentWidget({ content, context });
    widget.title.icon = rlworkbenchIcon;
    return widget;
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'rlworkbench-lab:plugin',
  description: 'The rlworkbench runs panel and component-graph viewer.',
  autoStart: true,
  optional: [ILayoutRestorer],
  activate: (app: JupyterFrontEnd, restorer: ILayoutRestorer | null) => {
    app.docRegistry.addWidgetFactory(new GraphViewerFactory({
      name: FACTORY, label: FACTORY, fileTypes: ['json'], defaultFor: [], readOnly: true
    }, app.serviceManager.contents));

    app.commands.addCommand(OPEN_GRAPH, {
      label: 'Component graph of a run',
      execute: (args) => {
        const content = new GraphView({ run: String(args.run) });
        const widget = new MainAreaWidget({ content });
        widget.id = `rlworkbench-graph-${args.run}`;
        widget.title.label = `graph: ${args.title ?? args.run}`;
        widget.title.icon = rlworkbenchIcon;
        widget.title.closable = true;
        app.shell.add(widget, 'main');
        return widget;
      }
    });

    app.commands.addCommand(OPEN_COMPARE, {
      label: 'Compare runs',
      execute: (args) => {
        const runs = (args.runs as string[]) ?? [];
        const widget = new MainAreaWidget({ content: new CompareView(runs) });
        widget.id = `rlworkbench-compare-${runs.join('-')}`;
        widget.title.label = `compare: ${runs.length} runs`;
        widget.title.icon = rlworkbenchIcon;
        widget.title.closable = true;
        app.shell.add(widget, 'main');
        return widget;
      }
    });

    app.commands.addCommand(OPEN_DATAFLOW, {
      label: 'Dataflow of a run',
      execute: (args) => {
        const id = `rlworkbench-dataflow-${args.run}`;
        const open = [...app.shell.widgets('main')].find((widget) => widget.id === id);
        if (open) {
          app.shell.activateById(id);
          return open;
        }
        const widget = new MainAreaWidget({ content: new DataflowPanel(String(args.run)) });
        widget.id = id;
        widget.title.label = `dataflow: ${args.title ?? args.run}`;
        widget.title.icon = rlworkbenchIcon;
        widget.title.closable = true;
        app.shell.add(widget, 'main');
        return widget;
      }
    });

    const panel = new RunsPanel({
      openGraph: async (run: IRunRecord) => {
        await app.commands.execute(OPEN_GRAPH, { run: run.id, title: `${configLabel(run)} · ${run.env}` });
      },
      openDataflow: async (run: IRunRecord) => {
        const title = `${configLabel(run)} · run ${run.id.slice(0, 6)}`;
        await app.commands.execute(OPEN_DATAFLOW, { run: run.id, title });
      },
      openTensorBoard: async (run: IRunRecord) => {
        try {
          const reply = await requestAPI<{ url: string }>(`runs/${run.id}/tensorboard`, { method: 'POST' });
          const frame = new IFrame({ sandbox: ['allow-scripts', 'allow-same-origin', 'allow-forms', 'allow-popups'] });
          frame.url = reply.url;
          const widget = new MainAreaWidget({ content: frame });
          widget.id = `rlworkbench-tensorboard-${run.id}`;
          widget.title.label = `TensorBoard: ${configLabel(run)} · run ${run.id.slice(0, 6)}`;
          widget.title.closable = true;
          app.shell.add(widget, 'main');
        } catch (error) {
          Notification.error(`TensorBoard for ${configLabel(run)}: ${error}`);
        }
      },
      openFolder: async (name: string, path: string, inRoot: string | null) => {
        if (inRoot !== null) {
          await app.commands.execute('filebrowser:go-to-path', { path: `/${inRoot}` });
        } else {
          Notification.info(`${name} writes to ${path} (outside this server's root)`);
        }
      },
      openCompare: async (runIds: string[]) => {
        await app.commands.execute(OPEN_COMPARE, { runs: runIds });
      }
    });
    panel.title.icon = rlworkbenchIcon;
    app.shell.add(panel, 'left', { rank: 600 });
    if (restorer) {
      restorer.add(panel, 'rlworkbench-runs');
    }
  }
};

export default plugin;
