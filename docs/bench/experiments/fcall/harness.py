"""EVALSHA (scripts as Warden sends them) against FCALL (the same code as a Redis 7 function library), pinned.
One cycle: a writer acquires, a reader queues behind it, the writer's release lends to the reader, the reader releases:
4 scripts, 2 acquisitions, pipelined. Windows alternate between the two ways; Redis main-thread CPU per acquisition.

    python3 harness.py PORT WINDOWS CYCLES DUMP_DIR    (DUMP_DIR: where Dump.java wrote the scripts; see README.md)
"""
import os, socket, sys, re, statistics

def enc(*args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b'$%d\r\n%s\r\n' % (len(a), a))
    return b''.join(out)

class R:
    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', port)); self.buf = b''
    def line(self):
        while b'\r\n' not in self.buf:
            self.buf += self.s.recv(65536)
        l, self.buf = self.buf.split(b'\r\n', 1); return l
    def read(self):
        l = self.line(); t = l[:1]
        if t in (b'+', b':'): return l[1:]
        if t == b'-': raise RuntimeError(l)
        if t == b'$':
            n = int(l[1:])
            if n < 0: return None
            while len(self.buf) < n + 2: self.buf += self.s.recv(65536)
            v, self.buf = self.buf[:n], self.buf[n + 2:]; return v
        if t == b'*':
            n = int(l[1:]); return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError(l)
    def call(self, *a):
        self.s.sendall(enc(*a)); return self.read()

port = int(sys.argv[1]); windows = int(sys.argv[2]); cycles = int(sys.argv[3])
r = R(port)
D = sys.argv[4] + '/'
acq, rel = open(D + 'share-acquire').read(), open(D + 'share-release').read()
sha_a, sha_r = r.call('SCRIPT', 'LOAD', acq).decode(), r.call('SCRIPT', 'LOAD', rel).decode()
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../../warden-core/src/main/resources/dev/warden/internal/script/')
def body(name):
    return open(src + name + '.lua').read()
pre = ''.join(open(src + p + '.lua').read() + '\n' for p in ('lock', 'queue', 'share'))
pre = re.sub(r'^if redis.replicate_commands then redis.replicate_commands\(\) end$', '', pre, flags=re.M)
lib = '#!lua name=wx\n' + pre + '\n'
for fname, script in (('wx_acquire', 'share-acquire'), ('wx_release', 'share-release')):
    lib += "redis.register_function('%s', function(KEYS, ARGV)\nclock_us = nil\nclock_ms_text = nil\n%s\nend)\n" % (fname, body(script))
r.call('FUNCTION', 'LOAD', 'REPLACE', lib)
CAP = '1000000'
K = ['{b}:rw', '{b}:rw:h', '{b}:rw:q', '{b}:rw:r']
def acquire_args(token, permits, kind):
    return [token, '30000', kind, '0', '30000', '3000', 'cid%s' % token[-1], permits, CAP, 'rw', '', '86400000', '{b}:c', 'PUBLISH']
def release_args(token):
    return [token, 'rw', '86400000', '{b}:c', 'PUBLISH', 'cidx']
def run(way, n):
    for i in range(n):
        w, rd = 'w%09d1' % i, 'r%09d2' % i
        steps = [('a', acquire_args(w, CAP, '1')), ('a', acquire_args(rd, '1', '1')), ('r', release_args(w)), ('r', release_args(rd))]
        out = []
        for kind, args in steps:
            if way == 'sha':
                out.append(enc('EVALSHA', sha_a if kind == 'a' else sha_r, 4, *K, *args))
            else:
                out.append(enc('FCALL', 'wx_acquire' if kind == 'a' else 'wx_release', 4, *K, *args))
        r.s.sendall(b''.join(out))
        res = [r.read() for _ in steps]
        if i == 0 and way_check:
            print(way, res, file=sys.stderr)
def cpu():
    info = r.call('INFO', 'cpu').decode()
    m = dict(l.split(':') for l in info.split('\r\n') if ':' in l)
    return float(m['used_cpu_sys_main_thread']) + float(m['used_cpu_user_main_thread'])
way_check = True
run('sha', 5); run('fcall', 5); way_check = False
res = {'sha': [], 'fcall': []}
for w in range(windows):
    for way in (('sha', 'fcall') if w % 2 == 0 else ('fcall', 'sha')):
        c0 = cpu(); run(way, cycles); c1 = cpu()
        res[way].append((c1 - c0) * 1e6 / (2 * cycles))
for way in res:
    v = res[way]; print(way, 'median %.2f us/acq' % statistics.median(v), 'range %.2f-%.2f' % (min(v), max(v)))
print('fcall/sha %.3f' % (statistics.median(res['fcall']) / statistics.median(res['sha'])))
