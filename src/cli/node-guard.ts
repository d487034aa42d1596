// Imported first by every entry point (dist/main.js, dist/cli/*.js), before
// any module that loads the SQLite driver: an unsupported Node.js stops here
// with what to do (src/shared/supported-node.ts).
import { refuseUnsupportedNode } from '../shared/supported-node';

refuseUnsupportedNode();
