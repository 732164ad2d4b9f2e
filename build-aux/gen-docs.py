#!/usr/bin/env python3
"""Regenerates README.md and docs/*.md from docs/src/*.in with real ppsim output (make docs).

Directives, each on a line of its own in a template:
  @@RUN CMD         a ```sh block with CMD and a ```text block with its whole output
  @@RUNTAIL N CMD   the same, showing "..." and the last N lines
  @@RUNTL CMD       the same, showing "..." and the timeline (the lines after the blank
                    line before the first "GPU " row)
  @@ERR CMD         (consecutive lines) a ```text block of "$ CMD", its error and exit status
  @@FILE NAME       a ```csv block with a file an earlier command wrote
  @@EXAMPLE NAME    a ```sh block "sh examples/NAME.sh" and a ```text block with its output
  @@MD SECTION      the Markdown table tests/validation/report.sh prints for SECTION, as it is
And inline, anywhere in a line:
  {{KEY;FMT;CMD}}   the figure at KEY (a dotted path, with /N or *N to divide or multiply it) of
                    the JSON that CMD (a ppsim command with -f json) prints, as Python's
                    format(x, FMT) writes it, followed by a comment holding the directive:
                    "{{step_time/1000;.2f;ppsim -c configs/x.json -f json}} s" gives
                    "4.68<!--{{step_time/1000;.2f;...}}--> s", shown as "4.68 s" (no '|',
                    which would split a Markdown table's cell).
tests/cli/t_docs.sh checks the generated files against the binary: their commands' outputs,
and each inline figure with `gen-docs.py --check FILE...` (PPSIM naming the binary).
"""
import atexit, json, os, re, shlex, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, 'build')
WORK = tempfile.mkdtemp()
# removed at the end, the symlinks only (never what they name), whatever the outcome
atexit.register(shutil.rmtree, WORK, ignore_errors=True)
# documented commands run in WORK and name the tree's files as from its top
for d in ('configs', 'docs', 'examples', 'tests'):
    os.symlink(os.path.join(ROOT, d), os.path.join(WORK, d))
env = dict(os.environ, PATH=BIN + ':' + os.environ['PATH'])
# the binary an inline figure's command runs: PPSIM (the tests'), else the tree's build
PPSIM = os.environ.get('PPSIM', os.path.join(BIN, 'ppsim'))

# an inline figure: {{KEY;FMT;CMD}}, and as the generated file holds it, VALUE<!--{{...}}-->
FIGURE = re.compile(r'\{\{([^;{}]+);([^;{}]*);(ppsim [^;{}]+)\}\}')
SHOWN = re.compile(r'(-?[0-9][0-9.,eE+-]*)<!--\{\{([^;{}]+);([^;{}]*);(ppsim [^;{}]+)\}\}-->')
_figures = {}

def figure(key, fmt, cmd):
    """The text of the figure at key of cmd's JSON output, formatted by fmt."""
    if cmd not in _figures:
        r = subprocess.run([PPSIM] + shlex.split(cmd)[1:], cwd=WORK, env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            sys.exit(f'FAILED ({r.returncode}): {cmd}: {r.stderr}')
        _figures[cmd] = json.loads(r.stdout)
    m = re.fullmatch(r'([^/*]+)(?:([/*])([0-9.e+]+))?', key.strip())
    x = _figures[cmd]
    for part in m.group(1).split('.'):
        x = x[int(part)] if isinstance(x, list) else x[part]
    if m.group(2) == '/':
        x = x / float(m.group(3))
    elif m.group(2) == '*':
        x = x * float(m.group(3))
    return format(x, fmt)

def figures(line):
    return FIGURE.sub(lambda m: figure(*m.groups()) + '<!--' + m.group(0) + '-->', line)

def check(paths):
    """Each inline figure of the generated files at paths against the binary; returns the
    number that differ, each printed."""
    bad = 0
    for path in paths:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if line.count('<!--{{') != len(SHOWN.findall(line)):
                    print(f'{path}:{n}: an inline figure without its number before it')
                    bad += 1
                for m in SHOWN.finditer(line):
                    want = figure(m.group(2), m.group(3), m.group(4))
                    if m.group(1) != want:
                        print(f'{path}:{n}: shows {m.group(1)!r}, {m.group(4)} gives {want!r}')
                        bad += 1
    return bad

def run(cmd):
    if cmd.startswith('sh examples/'):
        r = subprocess.run(shlex.split(cmd), cwd=ROOT, capture_output=True, text=True,
                           env=dict(env, PPSIM=os.path.join(BIN, 'ppsim')),
                           stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout, r.stderr
    assert cmd.startswith('ppsim '), cmd
    r = subprocess.run(shlex.split(cmd), cwd=WORK, env=env, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout, r.stderr

def expand(lines):
    out = []
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith('@@EXAMPLE '):
            l = '@@RUN sh examples/' + l.split(' ', 1)[1].strip() + '.sh'
        if l.startswith('@@RUN ') or l.startswith('@@RUNTAIL ') or l.startswith('@@RUNTL '):
            kind, rest = l.split(' ', 1)
            n = None
            if kind == '@@RUNTAIL':
                n, rest = rest.split(' ', 1)
                n = int(n)
            cmd = rest.strip()
            rc, so, se = run(cmd)
            if rc != 0 or se:
                sys.exit(f'FAILED ({rc}): {cmd}: {se}')
            body = so.rstrip('\n').split('\n')
            if kind == '@@RUNTAIL':
                body = ['...'] + body[-n:]
            elif kind == '@@RUNTL':
                # the timeline: from the blank line before its first row (its bands hold
                # blank lines too)
                g = next((j for j, x in enumerate(body) if x.startswith('GPU ')), len(body))
                k = max(j for j, x in enumerate(body) if x == '' and j < g)
                body = ['...'] + body[k + 1:]
            out += ['```sh', cmd, '```', '```text'] + body + ['```']
        elif l.startswith('@@ERR '):
            block = []
            while i < len(lines) and lines[i].startswith('@@ERR '):
                cmd = lines[i][6:].strip()
                rc, so, se = run(cmd)
                if rc == 0:
                    sys.exit(f'expected failure: {cmd}')
                block += [f'$ {cmd}'] + se.rstrip('\n').split('\n') + [f'(exit status {rc})']
                i += 1
            out += ['```text'] + block + ['```']
            continue
        elif l.startswith('@@MD '):
            section = l[5:].strip()
            r = subprocess.run(['sh', 'tests/validation/report.sh', os.path.join(BIN, 'ppsim'),
                                os.path.join(BIN, 'jget'), section], cwd=ROOT,
                               capture_output=True, text=True, stdin=subprocess.DEVNULL)
            if r.returncode != 0 or r.stderr:
                sys.exit(f'FAILED ({r.returncode}): report.sh {section}: {r.stderr}')
            out += r.stdout.rstrip('\n').split('\n')
        elif l.startswith('@@FILE '):
            name = l[7:].strip()
            with open(os.path.join(WORK, name)) as f:
                out += ['```csv'] + f.read().rstrip('\n').split('\n') + ['```']
        else:
            out.append(figures(l))
        i += 1
    return out

if sys.argv[1:2] == ['--check']:
    sys.exit(1 if check(sys.argv[2:]) else 0)

for src in sys.argv[1:]:
    with open(src) as f:
        lines = f.read().split('\n')
    name = os.path.basename(src)[:-3]
    dst = os.path.join(ROOT, name if name == 'README.md' else os.path.join('docs', name))
    rel = os.path.relpath(src, ROOT)
    head = f'<!-- Generated from {rel} by make docs: edit that file, not this one. -->'
    # the page is expanded whole before the file is opened: a command that fails (sys.exit)
    # leaves the page as it was, not empty
    text = '\n'.join([head] + expand(lines))
    with open(dst, 'w') as f:
        f.write(text)
    print('wrote', dst)
