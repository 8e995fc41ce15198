// Stands in for VS Code's webview host inside the test harness page (loaded before the panel).
// acquireVsCodeApi() records every posted message; getState/setState keep the state in
// sessionStorage, so a reload behaves like VS Code hiding and re-showing the panel.
// It also records CSP violations, alert() calls and errors, which the tests require to stay empty.
(function () {
  'use strict';
  var STATE_KEY = 'reachAudit.harness.webviewState';
  var posted = [];
  var violations = [];
  var errors = [];
  var alerts = [];
  var acquired = false;

  document.addEventListener('securitypolicyviolation', function (e) {
    violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample, source: e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber });
  });
  window.addEventListener('error', function (e) {
    errors.push(String(e.message || e.error));
  });
  window.addEventListener('unhandledrejection', function (e) {
    errors.push('unhandled rejection: ' + String(e.reason));
  });
  window.alert = function (message) {
    alerts.push(String(message));
  };

  window.acquireVsCodeApi = function () {
    if (acquired) throw new Error('acquireVsCodeApi may only be called once');
    acquired = true;
    return Object.freeze({
      postMessage: function (message) {
        // VS Code serializes messages; a message that cannot be cloned as JSON is a bug.
        posted.push(JSON.parse(JSON.stringify(message)));
      },
      getState: function () {
        var stored = sessionStorage.getItem(STATE_KEY);
        return stored === null ? undefined : JSON.parse(stored);
      },
      setState: function (state) {
        sessionStorage.setItem(STATE_KEY, JSON.stringify(state));
        return state;
      },
    });
  };

  window.__harness = {
    posted: posted,
    violations: violations,
    errors: errors,
    alerts: alerts,
    storedState: function () {
      var stored = sessionStorage.getItem(STATE_KEY);
      return stored === null ? undefined : JSON.parse(stored);
    },
    clearState: function () {
      sessionStorage.removeItem(STATE_KEY);
    },
  };
})();
