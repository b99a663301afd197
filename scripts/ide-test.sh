#!/usr/bin/env bash
# The IDE test: rust-analyzer (the pinned toolchain's, rust-toolchain.toml)
# checks the fixture crate ui-tests/ide/, whose kernels are half-typed, and
# this script asserts what a user would see in the editor:
# - each line marked `// error: TKnnnn` carries the macro's error with that
#   code, and it is the file's only macro error;
# - a line marked `// error: syntax` carries rust-analyzer's own syntax
#   error and the macro adds none;
# - nowhere a rustc error (no E0425: the launchers resolve in `main`), and
#   never "`compile_error!` argument must be a string" or "Syntax Error in
#   Expansion" (an error placed on a token the editor inserted).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fixture=ui-tests/ide
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Installed with the toolchain (rust-toolchain.toml lists it); added here
# too for a toolchain installed before the component was listed.
rustup component add rust-analyzer rust-src
rust-analyzer --version
# Exits non-zero when it finds errors, which the fixture has on purpose.
rust-analyzer diagnostics "$fixture" >"$out" 2>/dev/null || true
python3 - "$fixture" "$out" <<'PY'
import pathlib, re, sys
fixture, out = pathlib.Path(sys.argv[1]).resolve(), sys.argv[2]
text = open(out, encoding="utf-8", errors="replace").read()
if "diagnostic scan complete" not in text:
    sys.exit("rust-analyzer did not finish its scan")
pattern = re.compile(
    r"file (\S+?): (\w+) (.+?) from LineCol \{ line: (\d+), col: \d+ \} "
    r"to LineCol \{ line: \d+, col: \d+ \}: ([^\r\n]*)")
found = {}
for path, severity, kind, line, message in pattern.findall(text):
    path = pathlib.Path(path)
    if fixture in path.parents and "inactive-code" not in kind:
        found.setdefault(path.name, []).append((int(line) + 1, kind, message))
problems = []
for source in sorted((fixture / "src").glob("*.rs")):
    diagnostics = found.get(source.name, [])
    for line, kind, message in diagnostics:
        print(f"{source.name}:{line}: {kind}: {message}")
        if "must be a string" in message or "in Expansion" in message:
            problems.append(f"{source.name}:{line}: an error lost its message: {message}")
        if re.search(r"E\d{4}", kind + message):
            problems.append(f"{source.name}:{line}: a rustc error: {message}")
    macro = [(l, m) for l, k, m in diagnostics if "macro-error" in k]
    syntax = [l for l, k, m in diagnostics if k == "SyntaxError"]
    marks = [(n, m.group(1)) for n, t in enumerate(source.read_text().splitlines(), 1)
             if (m := re.search(r"// error: (TK\d{4}|syntax)", t))]
    codes = [(n, c) for n, c in marks if c != "syntax"]
    if len(macro) != len(codes) or any(
        not any(l == n and m.startswith(c + ":") for l, m in macro) for n, c in codes
    ):
        problems.append(f"{source.name}: expected the macro's errors {codes}, got {macro}")
    for n, c in marks:
        if c == "syntax" and n not in syntax:
            problems.append(f"{source.name}:{n}: expected rust-analyzer's syntax error")
if problems:
    sys.exit("IDE test failed:\n" + "\n".join(problems))
print("IDE test: OK")
PY
