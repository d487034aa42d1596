// Lets a child process run the TypeScript sources directly (node -r this),
// so that crash tests can kill a real worker process without a build.
// Type-checking is `npm test`'s job; here each file is only transpiled, and
// the result is cached by content so that the next child starts faster.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const cacheDir = path.join(os.tmpdir(), 'sns-register-ts-cache');
fs.mkdirSync(cacheDir, { recursive: true });
let ts = null;

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const cached = path.join(
    cacheDir,
    crypto.createHash('sha1').update(filename).update('\0').update(source).digest('hex') + '.js',
  );
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    ts ??= require('typescript');
    output = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        sourceMap: false,
      },
    }).outputText;
    const temporary = `${cached}.${process.pid}`;
    fs.writeFileSync(temporary, output);
    fs.renameSync(temporary, cached);
  }
  module._compile(output, filename);
};
