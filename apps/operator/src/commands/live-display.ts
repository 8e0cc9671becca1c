import type { RunningStandalone } from '../standalone/standalone.js';
import type { Io } from './command.js';
import type { StatusView } from './status-view.js';

export interface LiveDisplay {
  redraw(): void;
  stop(): void;
}

/** Redraws the view on every change the store shows (at most every 100 ms) and on a resize. */
export function liveDisplay(store: RunningStandalone['store'], view: StatusView, io: Io): LiveDisplay {
  let pending: NodeJS.Timeout | undefined;
  const redraw = () => {
    pending = undefined;
    view.update(store.records());
  };
  const unsubscribe = store.onDisplayChange(() => {
    pending ??= setTimeout(redraw, 100);
  });
  // The table shows how long a slow step has taken, so it is redrawn while one is running.
  const ticker = view.mode === 'table' ? setInterval(redraw, 1000) : undefined;
  // A resize reflows the table on screen: it is redrawn at once, cut to the new width.
  const unresize =
    view.mode === 'table'
      ? io.onResize?.(() => {
          clearTimeout(pending);
          redraw();
        })
      : undefined;
  redraw();
  return {
    redraw,
    stop: () => {
      unresize?.();
      unsubscribe();
      clearInterval(ticker);
      clearTimeout(pending);
    },
  };
}
