// Modules the page loads when they are first needed, not at its start: the QR
// code of the lobby and its library (a third of the client's bytes). Both files
// are asked for at once (qr.js imports the library, the module map shares it),
// so the lobby waits one round trip for its QR code, not two.

let qr = null;
let loading = null;

/** The QR module (qr.js) once it is loaded, else null. */
export const qrModule = () => qr;

/** Load qr.js (once; again after a failure). Resolves with the module. */
export function loadQr() {
  if (!loading) {
    loading = Promise.all([import('./qr.js'), import('../vendor/qrcode-generator/qrcode.mjs')])
      .then(([m]) => { qr = m; return m; })
      .catch((e) => { loading = null; throw e; });
  }
  return loading;
}
