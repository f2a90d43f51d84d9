#!/usr/bin/env python3
"""Prototype: re-compress an Itanium name with a different rule for when two
template-parameter references are "the same" substitution candidate.

  expand(clang_name)  -> tree with every S<n>_ reference replaced by a copy of
                         the candidate it names
  emit(tree, rule)    -> mangled string, compressing with `rule`

rule 'clang': a T<i>_ occurrence is keyed by (i, inside-a-pack-expansion)
              (Clang: canonical TemplateTypeParmType = depth-after-instantiation
              (always 0 here), index, pack)
rule 'edg'  : keyed by (depth of the owning template in the *pattern*, i),
              pack-ness ignored (nvcc / EDG).
Covers the subset of the grammar that kernel names use; raises on the rest.
"""
import sys

BUILTIN1 = set('vwbcahstijlmxynofdegz')
BUILTIN_D = {'Dn', 'Dh', 'Df', 'Dd', 'De', 'Di', 'Ds', 'Du', 'Da', 'Dc'}


class Node:
    __slots__ = ('kind', 'text', 'kids', 'cand', 'idx', 'scope', 'inpack', 'depth')

    def __init__(self, kind, text='', kids=None, cand=False, idx=None):
        self.kind, self.text, self.kids, self.cand, self.idx = kind, text, kids or [], cand, idx
        self.scope = None
        self.inpack = False
        self.depth = None  # for 'enc' nodes: template depth of its function in the pattern

    def copy(self):
        n = Node(self.kind, self.text, [k.copy() for k in self.kids], self.cand, self.idx)
        n.depth = self.depth
        return n


class Parser:
    def __init__(self, s):
        self.s, self.i, self.subs = s, 0, []

    def peek(self, n=1):
        return self.s[self.i:self.i + n]

    def eat(self, t):
        if self.s.startswith(t, self.i):
            self.i += len(t)
            return True
        return False

    def need(self, t):
        if not self.eat(t):
            raise ValueError('expected %r at %d: %s' % (t, self.i, self.s[self.i:self.i + 30]))

    def add(self, n):
        if n.cand:
            self.subs.append(n)
        return n

    def number(self):
        j = self.i
        if self.peek() == 'n':
            self.i += 1
        while self.s[self.i].isdigit():
            self.i += 1
        return self.s[j:self.i]

    def source_name(self):
        n = int(self.number())
        t = self.s[self.i:self.i + n]
        self.i += n
        return '%d%s' % (n, t)

    def seq_ref(self):  # after 'S'
        if self.eat('_'):
            k = 0
        else:
            j = self.i
            while self.s[self.i] != '_':
                self.i += 1
            k = int(self.s[j:self.i], 36) + 1
            self.i += 1
        return self.subs[k].copy()

    # <mangled-name>
    def mangled(self):
        self.need('_Z')
        e = self.encoding()
        if self.i != len(self.s):
            raise ValueError('trailing: ' + self.s[self.i:])
        return e

    def encoding(self):
        name, is_tmpl = self.name()
        kids = [name]
        if self.i < len(self.s) and self.peek() not in ('E', '.'):
            if is_tmpl:
                kids.append(self.type())  # return type
            while self.i < len(self.s) and self.peek() not in ('E', '.'):
                kids.append(self.type())
        return Node('enc', kids=kids)

    def name(self):
        c = self.peek()
        if c == 'N':
            return self.nested(as_type=False)
        if c == 'Z':
            return self.local(), False
        if c == 'S' and self.peek(2) != 'St':
            self.i += 1
            sub = self.seq_ref()
            ta = self.template_args()
            return Node('tid', kids=[sub, ta]), True
        un = self.unscoped()
        if self.peek() == 'I':
            un.cand = True
            self.add(un)
            ta = self.template_args()
            return Node('tid', kids=[un, ta]), True
        return un, False

    def unscoped(self):
        pre = 'St' if self.eat('St') else ''
        return Node('uname', pre + self.unqualified())

    def unqualified(self):
        pre = 'L' if self.eat('L') else ''
        c = self.peek()
        if c.isdigit():
            return pre + self.source_name()
        if self.eat('Ul'):
            return None  # handled by caller (needs kids)
        raise ValueError('unqualified at %d: %s' % (self.i, self.s[self.i:]))

    def closure(self):  # after 'Ul'
        kids = []
        while self.peek() != 'E':
            kids.append(self.type())
        self.need('E')
        num = self.number() if self.s[self.i].isdigit() else ''
        self.need('_')
        return Node('closure', num, kids)

    def component(self):
        j = self.i
        if self.eat('Ul'):
            return self.closure()
        if self.peek(2) in ('C1', 'C2', 'C3', 'D0', 'D1', 'D2'):
            self.i += 2
            return Node('uname', self.s[j:self.i])
        if self.peek().islower() and self.peek() != 'L':
            self.i += 2  # operator name (cl, ...)
            return Node('uname', self.s[j:self.i])
        return Node('uname', self.unqualified())

    def nested(self, as_type):
        self.need('N')
        q = ''
        while self.peek() in ('r', 'V', 'K', 'R', 'O', 'H'):
            q += self.peek()
            self.i += 1
        prefix = None
        is_tmpl = False
        while not self.eat('E'):
            if prefix is None and self.peek() == 'S' and self.peek(2) != 'St':
                self.i += 1
                prefix = self.seq_ref()
                continue
            if prefix is None and self.eat('St'):
                prefix = Node('uname', 'St')  # not a candidate
                continue
            if self.peek() == 'I':
                comp = self.template_args()
                is_tmpl = True
            else:
                comp = self.component()
                is_tmpl = False
            prefix = Node('prefix', kids=[prefix, comp] if prefix else [comp], cand=True)
            self.add(prefix)
        # the complete name is not a candidate as a name (as a type it is)
        if self.subs and self.subs[-1] is prefix:
            self.subs.pop()
        prefix.cand = False
        return Node('nested', q, [prefix]), is_tmpl

    def local(self):
        self.need('Z')
        enc = self.encoding()
        self.need('E')
        if self.eat('s'):
            ent = Node('uname', 's')
        elif self.peek() == 'N':
            ent, _ = self.nested(as_type=False)
        else:
            ent = self.component()
        disc = ''
        if self.peek() == '_' and self.peek(2) != '__':
            j = self.i
            self.i += 1
            self.number()
            disc = self.s[j:self.i]
        return Node('local', disc, [enc, ent])

    def type(self):
        s, c = self.s, self.peek()
        if c in BUILTIN1:
            self.i += 1
            return Node('builtin', c)
        if self.peek(2) in BUILTIN_D:
            self.i += 2
            return Node('builtin', s[self.i - 2:self.i])
        if c in 'rVK':
            q = ''
            while self.peek() in ('r', 'V', 'K'):
                q += self.peek()
                self.i += 1
            return self.add(Node('qual', q, [self.type()], cand=True))
        if c in 'PRO':
            self.i += 1
            return self.add(Node('ptr', c, [self.type()], cand=True))
        if c == 'F':
            self.i += 1
            kids = []
            while self.peek() != 'E':
                kids.append(self.type())
            self.i += 1
            return self.add(Node('fn', 'F', kids, cand=True))
        if c == 'A':
            self.i += 1
            d = self.number()
            self.need('_')
            return self.add(Node('arr', d, [self.type()], cand=True))
        if c == 'T':
            t = self.tparam()
            self.add(t)
            if self.peek() == 'I':
                return self.add(Node('tid', kids=[t, self.template_args()], cand=True))
            return t
        if self.eat('Dp'):
            return self.add(Node('pack', kids=[self.type()], cand=True))
        if self.eat('Dv'):
            d = self.number()
            self.need('_')
            return self.add(Node('vec', d, [self.type()], cand=True))
        if c == 'S' and self.peek(2) != 'St':
            self.i += 1
            sub = self.seq_ref()
            if self.peek() == 'I':
                return self.add(Node('tid', kids=[sub, self.template_args()], cand=True))
            return sub
        # class-enum-type
        if c == 'N':
            n, _ = self.nested(as_type=True)
            n.kids[0].cand = True  # the complete class name
            self.add(n.kids[0])
            return n
        n, _ = self.name()
        n.cand = True
        return self.add(n)

    def tparam(self):
        self.need('T')
        j = self.i
        while self.s[self.i] != '_':
            self.i += 1
        idx = 0 if j == self.i else int(self.s[j:self.i]) + 1
        self.i += 1
        return Node('tparam', idx=idx, cand=True)

    def template_args(self):
        self.need('I')
        kids = []
        while not self.eat('E'):
            kids.append(self.template_arg())
        return Node('targs', kids=kids)

    def template_arg(self):
        if self.eat('J'):
            kids = []
            while not self.eat('E'):
                kids.append(self.template_arg())
            return Node('argpack', kids=kids)
        if self.eat('X'):
            e = self.expr()
            self.need('E')
            return Node('xexpr', kids=[e])
        if self.peek() == 'L':
            return self.expr_primary()
        return self.type()

    def expr_primary(self):
        self.need('L')
        if self.eat('_Z'):
            e = self.encoding()
            self.need('E')
            return Node('lext', kids=[e])
        t = self.type()
        j = self.i
        while self.s[self.i] != 'E':
            self.i += 1
        v = self.s[j:self.i]
        self.i += 1
        return Node('lit', v, [t])

    def expr(self):
        if self.peek() == 'L':
            return self.expr_primary()
        if self.peek() == 'T':
            return self.tparam()
        op = self.s[self.i:self.i + 2]
        if op in ('ad', 'ng', 'nt', 'co', 'de'):
            self.i += 2
            return Node('unop', op, [self.expr()])
        raise ValueError('expr at %d: %s' % (self.i, self.s[self.i:]))


def assign_scopes(n, scope=None, inpack=False):
    if n.kind == 'enc':
        scope = n
    if n.kind == 'tparam':
        n.scope, n.inpack = scope, inpack
    if n.kind == 'closure':
        for k in n.kids:
            assign_scopes(k, ('lambda', scope), inpack)
        return
    for k in n.kids:
        assign_scopes(k, scope, inpack or n.kind == 'pack')


def scope_depth(scope):
    if isinstance(scope, tuple):  # generic lambda: one deeper than its context
        return scope_depth(scope[1]) + 1
    return scope.depth or 0


def key(n, rule):
    if n.kind == 'tparam':
        if rule == 'clang':
            return ('T', n.idx, n.inpack)
        return ('T', scope_depth(n.scope), n.idx)
    return (n.kind, n.text, tuple(key(k, rule) for k in n.kids))


def seq(k):
    if k == 0:
        return 'S_'
    k -= 1
    d = ''
    while True:
        d = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'[k % 36] + d
        k //= 36
        if k == 0:
            break
    return 'S%s_' % d


class Emitter:
    def __init__(self, rule):
        self.rule, self.table = rule, {}

    def sub(self, n):
        if n.cand:
            k = key(n, self.rule)
            if k in self.table:
                return seq(self.table[k])
        return None

    def addc(self, n):
        if n.cand:
            k = key(n, self.rule)
            if k not in self.table:
                self.table[k] = len(self.table)

    def emit(self, n):
        r = self.sub(n)
        if r is not None:
            return r
        out = self.spell(n)
        self.addc(n)
        return out

    def spell(self, n):
        k, e = n.kind, self.emit
        if k == 'enc':
            return ''.join(e(c) for c in n.kids)
        if k == 'builtin':
            return n.text
        if k in ('qual', 'ptr'):
            return n.text + e(n.kids[0])
        if k == 'fn':
            return 'F' + ''.join(e(c) for c in n.kids) + 'E'
        if k == 'arr':
            return 'A' + n.text + '_' + e(n.kids[0])
        if k == 'vec':
            return 'Dv' + n.text + '_' + e(n.kids[0])
        if k == 'pack':
            return 'Dp' + e(n.kids[0])
        if k == 'tparam':
            return 'T_' if n.idx == 0 else 'T%d_' % (n.idx - 1)
        if k == 'tid':
            return e(n.kids[0]) + e(n.kids[1])
        if k == 'targs':
            return 'I' + ''.join(e(c) for c in n.kids) + 'E'
        if k == 'argpack':
            return 'J' + ''.join(e(c) for c in n.kids) + 'E'
        if k == 'xexpr':
            return 'X' + e(n.kids[0]) + 'E'
        if k == 'lext':
            return 'L_Z' + e(n.kids[0]) + 'E'
        if k == 'lit':
            return 'L' + e(n.kids[0]) + n.text + 'E'
        if k == 'unop':
            return n.text + e(n.kids[0])
        if k == 'uname':
            return n.text
        if k == 'closure':
            return 'Ul' + ''.join(e(c) for c in n.kids) + 'E' + n.text + '_'
        if k == 'local':
            return 'Z' + e(n.kids[0]) + 'E' + e(n.kids[1]) + n.text
        if k == 'nested':
            r = self.sub(n.kids[0])
            if r is not None:  # a class type substituted whole: no N...E
                return r
            return 'N' + n.text + self.emit_prefix(n.kids[0]) + 'E'
        if k == 'prefix':
            return self.emit_prefix(n)
        raise ValueError(k)

    def emit_prefix(self, p):
        r = self.sub(p)
        if r is not None:
            return r
        if len(p.kids) == 2:
            out = self.emit_prefix(p.kids[0]) if p.kids[0].kind == 'prefix' else self.emit(p.kids[0])
            out += self.emit(p.kids[1])
        else:
            out = self.emit(p.kids[0])
        self.addc(p)
        return out


def pattern_depth(enc, overrides):
    """Template depth, in the pattern, of the function an encoding names: the
    number of enclosing class templates (heuristic: components with template
    arguments before the function's own name); `overrides` by function name
    (e.g. explicit specializations, which have none)."""
    name = enc.kids[0]
    comps = []
    if name.kind == 'nested':
        p = name.kids[0]
        while p is not None and p.kind == 'prefix':
            comps.append(p.kids[-1])
            p = p.kids[0] if len(p.kids) == 2 else None
        comps.reverse()
    if comps and comps[-1].kind == 'targs':
        comps = comps[:-1]
    fname = comps[-1].text if comps and comps[-1].kind == 'uname' else None
    if fname in overrides:
        return overrides[fname]
    return sum(1 for c in comps[:-1] if c.kind == 'targs')


def enc_depths(n, overrides, top=True):
    if n.kind == 'enc':
        n.depth = 0 if top else pattern_depth(n, overrides)
        top = False
    for k in n.kids:
        enc_depths(k, overrides, top)


def convert(name, rule='edg', overrides=None):
    assert name.startswith('_Z')
    tree = Parser(name).mangled()
    enc_depths(tree, overrides or {})
    assign_scopes(tree)
    return '_Z' + Emitter(rule).emit(tree)


if __name__ == '__main__':
    rule = sys.argv[1]
    ov = dict((a.split('=')[0], int(a.split('=')[1])) for a in sys.argv[2:])
    for line in sys.stdin:
        line = line.strip()
        if line:
            print(convert(line, rule, ov))
