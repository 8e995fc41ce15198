// Stands in for node:crypto in the synthetic-run bundle only (the page builds its runs with the
// audit's own summarize(), whose bootstrap intervals are keyed through node:crypto's SHA-256).
// Deterministic, well mixed enough for seeds, and not SHA-256: the intervals it keys (pass@k,
// blind retention, routes vs search) differ from Node's, and the panel shows none of them.
'use strict';

exports.createHash = function createHash() {
  var text = '';
  var api = {
    update: function (more) {
      text += more;
      return api;
    },
    digest: function () {
      var view = new DataView(new ArrayBuffer(32));
      for (var word = 0; word < 8; word++) {
        var h = (0x811c9dc5 ^ Math.imul(word + 1, 0x9e3779b9)) >>> 0; // FNV-1a, a different basis per word
        for (var i = 0; i < text.length; i++) {
          h ^= text.charCodeAt(i);
          h = Math.imul(h, 0x01000193) >>> 0;
        }
        view.setUint32(4 * word, h, true);
      }
      return {
        readUInt32LE: function (offset) {
          return view.getUint32(offset, true);
        },
      };
    },
  };
  return api;
};
