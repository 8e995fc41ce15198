// Stylesheets are imported for their side effect: esbuild emits them next to the bundle (main.css).
declare module '*.css';
