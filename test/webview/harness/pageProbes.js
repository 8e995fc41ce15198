// Page-side helpers for the panel tests and the benchmark: build a synthetic run in the page
// (ReachAuditSynthetic, bundled from test/webview/syntheticRun.ts), post it the way the extension
// would, and time what the user sees with performance.now().
(function () {
  'use strict';

  function nextFrame() {
    return new Promise(function (resolve) {
      requestAnimationFrame(function () {
        resolve();
      });
    });
  }

  function sleep(ms) {
    return new Promise(function (resolve) {
      setTimeout(resolve, ms);
    });
  }

  async function waitFor(test, timeoutMs) {
    var start = performance.now();
    while (!test()) {
      if (performance.now() - start > (timeoutMs || 10000)) throw new Error('timed out waiting in page');
      await nextFrame();
    }
  }

  function visibleRows() {
    return Array.prototype.filter.call(document.querySelectorAll('.qt-body-row'), function (r) {
      return !r.hidden;
    });
  }

  /** Forces style and layout, so a timing includes the browser's work to show the change. */
  function settle() {
    var grid = document.querySelector('.qt');
    if (grid) grid.getBoundingClientRect();
    var row = visibleRows()[0];
    return row ? row.offsetHeight : 0;
  }

  var lastRun = null;

  window.__probes = {
    nextFrame: nextFrame,
    sleep: sleep,
    visibleRows: visibleRows,

    makeRun: function (options) {
      lastRun = ReachAuditSynthetic.makeSyntheticRun(options);
      return { records: lastRun.records.length, bytes: JSON.stringify(lastRun).length };
    },

    /**
     * Posts the last made run as the extension would and times it: `rowsMs` until the first rows
     * are in the DOM, `frameMs` until the frame after (painted), `allMs` until the table counts
     * every record. With `chunk`, the run goes as loadRun with the first `chunk` records and
     * appendRecords messages of `batch` records (what the extension does for large runs); without,
     * as one loadRun message.
     */
    postRun: async function (options) {
      var chunk = (options && options.chunk) || 0;
      var batch = (options && options.batch) || 2000;
      var run = lastRun;
      var total = run.records.length;
      var messages = [];
      if (chunk > 0 && total > chunk) {
        messages.push({ type: 'loadRun', run: Object.assign({}, run, { records: run.records.slice(0, chunk) }) });
        for (var start = chunk; start < total; start += batch) {
          messages.push({ type: 'appendRecords', runId: run.runId, records: run.records.slice(start, start + batch) });
        }
      } else {
        messages.push({ type: 'loadRun', run: run });
      }
      // The tab badge counts every record the panel holds, whatever the filter.
      var expectedCount = total.toLocaleString('en-US');
      await sleep(30);
      var t0 = performance.now();
      window.postMessage(messages[0], '*');
      await waitFor(function () {
        return visibleRows().length > 0;
      });
      var tRows = performance.now();
      await nextFrame();
      var tFrame = performance.now();
      // The rest one message per task, as they would arrive from the extension host. (Here the
      // page also pays for serializing them, which in VS Code happens in the extension host.)
      for (var i = 1; i < messages.length; i++) {
        window.postMessage(messages[i], '*');
        await sleep(0);
      }
      await waitFor(function () {
        var c = document.querySelector('.badge');
        return c && c.textContent === expectedCount;
      }, 60000);
      var tAll = performance.now();
      return { rowsMs: tRows - t0, frameMs: tFrame - t0, allMs: tAll - t0, rendered: visibleRows().length, messages: messages.length };
    },

    /** Baseline: scan the raw records for `text` with no index (lower-casing as it goes), no drawing. */
    naiveSearch: function (text) {
      var needle = text.toLowerCase();
      var t0 = performance.now();
      var hits = lastRun.records.filter(function (r) {
        return (String(r.id) + '\u0000' + (r.question || '') + '\u0000' + String(r.gold) + '\u0000' + String(r.realized.answer)).toLowerCase().indexOf(needle) >= 0;
      });
      var ms = performance.now() - t0;
      if (hits.length < 0) throw new Error('unreachable');
      return ms;
    },

    post: function (message) {
      window.postMessage(message, '*');
    },

    /** Sets the search box as typing would and times the table's answer (sync + style/layout). */
    timeSearch: function (text) {
      var field = document.querySelector('vscode-text-field.search');
      var t0 = performance.now();
      field.value = text;
      field.dispatchEvent(new Event('input', { bubbles: true }));
      settle();
      return { ms: performance.now() - t0, shown: document.querySelector('.count').textContent };
    },

    /** Picks a state filter in the dropdown and times the table's answer. */
    timeFilter: function (value) {
      var box = document.querySelector('vscode-dropdown.filter');
      var t0 = performance.now();
      box.value = value;
      box.dispatchEvent(new Event('change', { bubbles: true }));
      settle();
      return { ms: performance.now() - t0, shown: document.querySelector('.count').textContent };
    },

    /** Clicks a column header and times the resort. */
    timeSort: function (label) {
      var buttons = Array.prototype.slice.call(document.querySelectorAll('.qt-sort'));
      var button = buttons.find(function (b) {
        return b.textContent.trim().toLowerCase().indexOf(label) === 0;
      });
      var t0 = performance.now();
      button.click();
      settle();
      return { ms: performance.now() - t0 };
    },

    /** Scrolls the grid to `top` and times drawing the rows now in view. */
    timeScroll: async function (top) {
      var viewport = document.querySelector('.qt-viewport');
      var t0 = performance.now();
      viewport.scrollTop = top;
      await nextFrame();
      settle();
      return { ms: performance.now() - t0 };
    },
  };
})();
