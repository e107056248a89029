// The graph viewer follows its file: redrawn when the file is saved (or reverted) in this lab — through the
// document's context (an editor on the same file shares it) or through the contents API from any other editor —
// and renamed with it. No polling: a change written outside this lab shows after Reload.
import { DocumentRegistry } from '@jupyterlab/docregistry';
import { Contents } from '@jupyterlab/services';
import { GraphView } from './graphView';

export function followFile(view: GraphView, context: DocumentRegistry.Context, contents: Contents.IManager): void {
  // Connected once the context has read the file, so its first read is no "change".
  void context.ready.then(() => context.fileChanged.connect(() => view.scheduleReload(), view));
  contents.fileChanged.connect((_, change) => {
    if (change.type === 'save' && change.newValue?.path === context.path) {
      view.scheduleReload();
    }
  }, view);
  context.pathChanged.connect((_, path) => {
    view.path = path;
  }, view);
}
