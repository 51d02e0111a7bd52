# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The memo engine's search loop in C: an optional extension (``pip install`` builds it where a
C compiler and Cython are at hand; ``memo_core`` drives it, ``memo.memo_search`` is the
pure-Python loop it must equal state for state).

Everything here is bookkeeping on numbers: state vectors of uint32 ids in two level arenas, the
fingerprint sums as uint64 words, one open-addressing table for every memo's entries (keyed by
the shape and the ids its slots hold, compared in full: a hash collision costs a probe, never a
wrong answer), one for the Zobrist numbers and one for the visited fingerprints.  Every answer
the tables do not hold comes from the driver, in Python, from the model: this module never
computes a step, a property or a Zobrist number itself, so it can only repeat what the model
said.
"""

from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int32_t, int64_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcpy


cdef struct Buf:
    char* p
    size_t n  # elements
    size_t cap
    size_t esz


cdef int buf_reserve(Buf* b, size_t extra) except -1:
    cdef size_t cap
    cdef char* p
    if b.n + extra <= b.cap:
        return 0
    cap = b.cap * 2 if b.cap else 64
    while cap < b.n + extra:
        cap *= 2
    p = <char*> realloc(b.p, cap * b.esz)
    if p == NULL:
        raise MemoryError()
    b.p = p
    b.cap = cap
    return 0


cdef inline void buf_init(Buf* b, size_t esz):
    b.p = NULL
    b.n = 0
    b.cap = 0
    b.esz = esz


cdef struct Arena:  # states, one after another: a level's, or the claims pending at its end
    Buf vec  # uint32 ids, ``stride`` a state
    Buf sums  # uint64, ``nsums`` a state
    Buf idx  # int64: the state's store index (pending: its parent's)
    Buf conf  # char: its parallelism configuration


cdef void arena_init(Arena* a) noexcept:
    buf_init(&a.vec, 4)
    buf_init(&a.sums, 8)
    buf_init(&a.idx, 8)
    buf_init(&a.conf, 1)


cdef void arena_clear(Arena* a) noexcept:
    a.vec.n = a.sums.n = a.idx.n = a.conf.n = 0


cdef void arena_free(Arena* a) noexcept:
    free(a.vec.p); free(a.sums.p); free(a.idx.p); free(a.conf.p)


cdef struct Entry:
    uint64_t h  # 0: empty
    int64_t key  # offset of the key's ids in the key arena
    int32_t shape
    int32_t res  # result handle


cdef struct ZEntry:
    uint64_t key  # (p, slot, id) packed, plus one; 0: empty
    uint64_t z


cdef inline uint64_t fmix(uint64_t x):
    x ^= x >> 30
    x *= 0xBF58476D1CE4E5B9ULL
    x ^= x >> 27
    x *= 0x94D049BB133111EBULL
    x ^= x >> 31
    return x


cdef struct FpSet:
    uint64_t* t  # open addressing; 0: empty (the fingerprint 0 is kept in ``zero``)
    size_t cap
    size_t used  # fingerprints held, 0 included
    bint zero


cdef int fpset_init(FpSet* s, size_t cap) except -1:
    s.cap = cap
    s.used = 0
    s.zero = False
    s.t = <uint64_t*> calloc(s.cap, sizeof(uint64_t))
    if s.t == NULL:
        raise MemoryError()
    return 0


cdef bint fpset_has(FpSet* s, uint64_t u) noexcept:
    cdef size_t mask = s.cap - 1, j
    if u == 0:
        return s.zero
    j = fmix(u) & mask
    while s.t[j]:
        if s.t[j] == u:
            return True
        j = (j + 1) & mask
    return False


cdef bint fpset_add(FpSet* s, uint64_t u) except -1:
    """Whether ``u`` is new (and now in the set)."""
    cdef size_t mask = s.cap - 1, j, k, cap
    cdef uint64_t* t
    if u == 0:
        if s.zero:
            return False
        s.zero = True
        s.used += 1
        return True
    j = fmix(u) & mask
    while s.t[j]:
        if s.t[j] == u:
            return False
        j = (j + 1) & mask
    s.t[j] = u
    s.used += 1
    if s.used * 10 > s.cap * 7:
        cap = s.cap * 2
        t = <uint64_t*> calloc(cap, sizeof(uint64_t))
        if t == NULL:
            raise MemoryError()
        for k in range(s.cap):
            if s.t[k]:
                j = fmix(s.t[k]) & (cap - 1)
                while t[j]:
                    j = (j + 1) & (cap - 1)
                t[j] = s.t[k]
        free(s.t)
        s.t = t
        s.cap = cap
    return True


cdef void fpset_clear(FpSet* s) noexcept:
    cdef size_t k
    for k in range(s.cap):
        s.t[k] = 0
    s.used = 0
    s.zero = False


cdef class Core:
    """One search's tables and arenas.  ``memo ids`` name cached functions (each enabled rule
    group, each action's step, the always-properties, each action's witnesses); a memo's shapes
    (the slot sets its calls read) are chained in the order they were first seen, as
    ``memo.Memo`` tries them."""

    cdef int sizes[2]  # the vector's length in each parallelism configuration
    cdef readonly int nconf, stride, nsums
    # memos and shapes
    cdef Buf memo_first, memo_last  # int32 per memo: first and last shape, -1 if none
    cdef Buf shape_next, shape_off, shape_n  # int32 per shape
    cdef Buf shape_slots  # uint32 arena
    cdef Entry* table
    cdef size_t tcap, tused
    cdef Buf keys  # uint32 arena of entry keys
    cdef Buf res_off, res_len  # per result handle: offset in data (or index in objects), length (-1: all None)
    cdef Buf data  # uint32 arena: writes as (slot, id) pairs, enabled groups as action ids
    cdef list objects  # check results that are not all None
    cdef dict shape_of  # (memo, slots) -> shape id
    # Zobrist numbers
    cdef ZEntry* ztable
    cdef size_t zcap, zused
    cdef FpSet seen  # visited fingerprints (with workers: those this process owns, and all before the fork)
    # actions, per configuration (each numbers its own)
    cdef Buf step_memo[2]  # int32 per action
    cdef Buf some_memo[2]  # int32 per action, -1: none yet
    cdef Buf progress[2]  # char per action
    cdef object driver
    # counters (read by the driver when the search ends or stops)
    cdef readonly int64_t states, transitions, deepest, quiescent, check_calls, group_calls, queued
    cdef readonly bint exhausted, depth_stopped
    cdef int64_t n_stored  # the path store's length (with the entries before the search)
    cdef Buf store_fp, store_parent  # int64
    cdef Buf store_action  # uint16
    # workers (``memo_core.Workers``): this process owns the fingerprints ``rank`` modulo ``nworkers``;
    # a successor another owns is claimed at the level's end (``claimed``: once a level), and
    # waits in the pending arrays; ``known``: fingerprints of others found visited already
    cdef readonly int nworkers, rank
    cdef FpSet known, claimed
    cdef Arena pend  # the successors others own, with their parents' store indexes
    cdef Buf p_fp, p_action  # and their fingerprints (int64) and action positions (uint16)

    def __cinit__(self, tuple sizes, int nsums, driver):
        self.nconf = len(sizes)
        if not 1 <= self.nconf <= 2 or nsums > 127:
            raise ValueError("one or two configurations, at most 127 sums")
        self.sizes[0] = sizes[0]
        self.sizes[1] = sizes[len(sizes) - 1]  # (wraparound is off: no negative index)
        self.stride = max(sizes)
        self.nsums = nsums
        self.driver = driver
        buf_init(&self.memo_first, 4)
        buf_init(&self.memo_last, 4)
        buf_init(&self.shape_next, 4)
        buf_init(&self.shape_off, 4)
        buf_init(&self.shape_n, 4)
        buf_init(&self.shape_slots, 4)
        buf_init(&self.keys, 4)
        buf_init(&self.res_off, 8)
        buf_init(&self.res_len, 4)
        buf_init(&self.data, 4)
        for c in range(2):
            buf_init(&self.step_memo[c], 4)
            buf_init(&self.some_memo[c], 4)
            buf_init(&self.progress[c], 1)
        buf_init(&self.store_fp, 8)
        buf_init(&self.store_parent, 8)
        buf_init(&self.store_action, 2)
        self.nworkers = 1
        self.rank = 0
        fpset_init(&self.known, 1 << 12)
        fpset_init(&self.claimed, 1 << 12)
        arena_init(&self.pend)
        buf_init(&self.p_fp, 8)
        buf_init(&self.p_action, 2)
        self.objects = []
        self.shape_of = {}
        self.tcap = 1 << 16
        self.table = <Entry*> calloc(self.tcap, sizeof(Entry))
        self.zcap = 1 << 14
        self.ztable = <ZEntry*> calloc(self.zcap, sizeof(ZEntry))
        fpset_init(&self.seen, 1 << 16)
        if self.table == NULL or self.ztable == NULL:
            raise MemoryError()

    def __dealloc__(self):
        cdef Buf* bufs[19]
        bufs[:] = [&self.memo_first, &self.memo_last, &self.shape_next, &self.shape_off, &self.shape_n, &self.shape_slots,
                   &self.keys, &self.res_off, &self.res_len, &self.data, &self.step_memo[0], &self.some_memo[0], &self.progress[0],
                   &self.store_fp, &self.store_parent, &self.store_action, &self.step_memo[1], &self.some_memo[1],
                   &self.progress[1]]
        for i in range(19):
            free(bufs[i].p)
        free(self.table)
        free(self.ztable)
        free(self.seen.t)
        free(self.known.t)
        free(self.claimed.t)
        arena_free(&self.pend)
        free(self.p_fp.p); free(self.p_action.p)

    # -- memos ---------------------------------------------------------------------------------
    cpdef int new_memo(self) except -1:
        buf_reserve(&self.memo_first, 1)
        buf_reserve(&self.memo_last, 1)
        (<int32_t*> self.memo_first.p)[self.memo_first.n] = -1
        (<int32_t*> self.memo_last.p)[self.memo_last.n] = -1
        self.memo_first.n += 1
        self.memo_last.n += 1
        return <int> self.memo_first.n - 1

    cdef inline uint64_t key_hash(self, int32_t shape, const uint32_t* base) noexcept:
        cdef const uint32_t* slots = (<uint32_t*> self.shape_slots.p) + (<int32_t*> self.shape_off.p)[shape]
        cdef int32_t n = (<int32_t*> self.shape_n.p)[shape]
        cdef uint64_t h = (<uint64_t> shape + 1) * 0x9E3779B97F4A7C15ULL
        cdef int32_t j
        for j in range(n):
            h = (h ^ base[slots[j]]) * 0xFF51AFD7ED558CCDULL
            h ^= h >> 32
        h = fmix(h)
        return h if h else 1

    cdef inline int32_t lookup(self, int32_t memo, const uint32_t* base) noexcept:
        """The result handle of ``memo`` on the state at ``base``, or -1."""
        cdef int32_t s = (<int32_t*> self.memo_first.p)[memo]
        cdef int32_t* nxt = <int32_t*> self.shape_next.p
        cdef uint64_t h
        cdef size_t i, mask = self.tcap - 1
        cdef Entry* e
        cdef const uint32_t* slots
        cdef const uint32_t* key
        cdef int32_t n, j
        while s >= 0:
            h = self.key_hash(s, base)
            i = h & mask
            while True:
                e = &self.table[i]
                if e.h == 0:
                    break
                if e.h == h and e.shape == s:
                    slots = (<uint32_t*> self.shape_slots.p) + (<int32_t*> self.shape_off.p)[s]
                    n = (<int32_t*> self.shape_n.p)[s]
                    key = (<uint32_t*> self.keys.p) + e.key
                    j = 0
                    while j < n and key[j] == base[slots[j]]:
                        j += 1
                    if j == n:
                        return e.res
                i = (i + 1) & mask
            s = nxt[s]
        return -1

    cdef int32_t shape_for(self, int32_t memo, tuple slots) except -2:
        cdef object k = (memo, slots)
        cdef object got = self.shape_of.get(k)
        cdef int32_t s, j
        if got is not None:
            return got
        s = <int32_t> self.shape_n.n
        buf_reserve(&self.shape_next, 1)
        buf_reserve(&self.shape_off, 1)
        buf_reserve(&self.shape_n, 1)
        buf_reserve(&self.shape_slots, len(slots))
        (<int32_t*> self.shape_next.p)[s] = -1
        (<int32_t*> self.shape_off.p)[s] = <int32_t> self.shape_slots.n
        (<int32_t*> self.shape_n.p)[s] = <int32_t> len(slots)
        for j in range(len(slots)):
            (<uint32_t*> self.shape_slots.p)[self.shape_slots.n + j] = slots[j]
        self.shape_slots.n += len(slots)
        self.shape_next.n += 1
        self.shape_off.n += 1
        self.shape_n.n += 1
        if (<int32_t*> self.memo_last.p)[memo] < 0:
            (<int32_t*> self.memo_first.p)[memo] = s
        else:
            (<int32_t*> self.shape_next.p)[(<int32_t*> self.memo_last.p)[memo]] = s
        (<int32_t*> self.memo_last.p)[memo] = s
        self.shape_of[k] = s
        return s

    cdef int grow_table(self) except -1:
        cdef size_t cap = self.tcap * 2, i, j, mask = cap - 1
        cdef Entry* t = <Entry*> calloc(cap, sizeof(Entry))
        if t == NULL:
            raise MemoryError()
        for i in range(self.tcap):
            if self.table[i].h:
                j = self.table[i].h & mask
                while t[j].h:
                    j = (j + 1) & mask
                t[j] = self.table[i]
        free(self.table)
        self.table = t
        self.tcap = cap
        return 0

    cdef int put(self, int32_t memo, tuple slots, const uint32_t* base, int32_t res) except -1:
        cdef int32_t s = self.shape_for(memo, tuple(sorted(slots)))
        cdef int32_t n = (<int32_t*> self.shape_n.p)[s], j
        cdef const uint32_t* sl
        cdef uint64_t h
        cdef size_t i
        if (self.tused + 1) * 2 > self.tcap:
            self.grow_table()
        buf_reserve(&self.keys, n)
        sl = (<uint32_t*> self.shape_slots.p) + (<int32_t*> self.shape_off.p)[s]
        for j in range(n):
            (<uint32_t*> self.keys.p)[self.keys.n + j] = base[sl[j]]
        h = self.key_hash(s, base)
        i = h & (self.tcap - 1)
        while self.table[i].h:
            i = (i + 1) & (self.tcap - 1)
        self.table[i].h = h
        self.table[i].shape = s
        self.table[i].key = <int64_t> self.keys.n
        self.table[i].res = res
        self.keys.n += n
        self.tused += 1
        return 0

    cdef int32_t new_result(self, int64_t off, int32_t n) except -1:
        buf_reserve(&self.res_off, 1)
        buf_reserve(&self.res_len, 1)
        (<int64_t*> self.res_off.p)[self.res_off.n] = off
        (<int32_t*> self.res_len.p)[self.res_len.n] = n
        self.res_off.n += 1
        self.res_len.n += 1
        return <int32_t> self.res_off.n - 1

    cdef int32_t ids_result(self, object ids) except -1:
        """A result that is a run of uint32 (action ids, or writes flattened)."""
        cdef int64_t off = <int64_t> self.data.n
        cdef Py_ssize_t n = len(ids), j
        buf_reserve(&self.data, n)
        for j in range(n):
            (<uint32_t*> self.data.p)[self.data.n + j] = ids[j]
        self.data.n += n
        return self.new_result(off, <int32_t> n)

    cdef int32_t checks_result(self, tuple results) except -1:
        for r in results:
            if r is not None:
                self.objects.append(results)
                return self.new_result(len(self.objects) - 1, 0)
        return self.new_result(0, -1)

    cdef list as_list(self, const uint32_t* base, int n):
        return [base[j] for j in range(n)]

    # -- Zobrist numbers -------------------------------------------------------------------------
    cdef uint64_t zob(self, int c, int p, uint32_t slot, uint32_t i) except? 0:
        cdef uint64_t key = ((<uint64_t> (2 * p + c) << 56) | (<uint64_t> slot << 32) | i) + 1
        cdef size_t mask = self.zcap - 1, j = fmix(key) & mask, k, cap
        cdef ZEntry* t
        while self.ztable[j].key:
            if self.ztable[j].key == key:
                return self.ztable[j].z
            j = (j + 1) & mask
        z = <uint64_t> self.driver.z(c, p, slot, i)
        if (self.zused + 1) * 2 > self.zcap:
            cap = self.zcap * 2
            t = <ZEntry*> calloc(cap, sizeof(ZEntry))
            if t == NULL:
                raise MemoryError()
            for k in range(self.zcap):
                if self.ztable[k].key:
                    j = fmix(self.ztable[k].key) & (cap - 1)
                    while t[j].key:
                        j = (j + 1) & (cap - 1)
                    t[j] = self.ztable[k]
            free(self.ztable)
            self.ztable = t
            self.zcap = cap
            mask = cap - 1
            j = fmix(key) & mask
            while self.ztable[j].key:
                j = (j + 1) & mask
        self.ztable[j].key = key
        self.ztable[j].z = z
        self.zused += 1
        return z

    # -- visited fingerprints and workers' claims -------------------------------------------------
    def become_worker(self, int rank, int nworkers):
        """From the next level on, this process owns the fingerprints ``rank`` modulo
        ``nworkers`` and expands its share of the states (``memo_core.Workers.fork``)."""
        self.rank = rank
        self.nworkers = nworkers

    def answer(self, bytes claims):
        """Another worker's claims (int64 fingerprints this process owns): one byte each, 1
        where the state is new (it is now visited, and the claimer expands it)."""
        cdef const int64_t* fps = <const int64_t*> (<const char*> claims)
        cdef Py_ssize_t n = len(claims) // 8, j
        out = bytearray(n)
        cdef unsigned char* o = out
        for j in range(n):
            o[j] = 1 if self.add_seen(fps[j]) else 0
        return bytes(out)

    def pending_fps(self):
        """The fingerprints this level's successors owned by others have, in the order they
        were made (int64 bytes)."""
        return bytes((<char*> self.p_fp.p)[:self.p_fp.n * 8])

    cdef bint add_seen(self, int64_t fp) except -1:
        """Whether ``fp`` is new (and now seen)."""
        return fpset_add(&self.seen, <uint64_t> fp)

    # -- actions ---------------------------------------------------------------------------------
    cdef int know_actions(self, int c, size_t upto) except -1:
        cdef size_t a
        while self.step_memo[c].n < upto:
            buf_reserve(&self.step_memo[c], 1)
            buf_reserve(&self.some_memo[c], 1)
            buf_reserve(&self.progress[c], 1)
            a = self.step_memo[c].n
            (<int32_t*> self.step_memo[c].p)[a] = self.new_memo()
            (<int32_t*> self.some_memo[c].p)[a] = -1
            self.progress[c].p[a] = 1 if self.driver.is_progress(c, a) else 0
            self.step_memo[c].n += 1
            self.some_memo[c].n += 1
            self.progress[c].n += 1
        return 0

    def store_bytes(self):
        """The path store's entries added by the search: fingerprints, parents, action
        positions, as bytes for ``array.frombytes``."""
        return (bytes((<char*> self.store_fp.p)[:self.store_fp.n * 8]),
                bytes((<char*> self.store_parent.p)[:self.store_parent.n * 8]),
                bytes((<char*> self.store_action.p)[:self.store_action.n * 2]))

    def mark_seen(self, int64_t fp):
        self.add_seen(fp)

    cdef int push_state(self, Arena* a, const uint32_t* v, int n, const uint64_t* sums, int64_t ix, int c) except -1:
        """A state onto an arena: its vector (``n`` ids, in a slot of ``stride``), its sums,
        its store index and its configuration."""
        buf_reserve(&a.vec, self.stride)
        buf_reserve(&a.sums, self.nsums)
        buf_reserve(&a.idx, 1)
        buf_reserve(&a.conf, 1)
        memcpy((<uint32_t*> a.vec.p) + a.vec.n, v, n * 4)
        memcpy((<uint64_t*> a.sums.p) + a.sums.n, sums, self.nsums * 8)
        (<int64_t*> a.idx.p)[a.idx.n] = ix
        a.conf.p[a.conf.n] = <char> c
        a.vec.n += self.stride
        a.sums.n += self.nsums
        a.idx.n += 1
        a.conf.n += 1
        return 0

    cdef int admit(self, Arena* nxt, int64_t fp, int64_t parent, uint16_t action, const uint32_t* out, int oc,
                   const uint64_t* sums, int32_t* always_memo, bint has_always, int64_t depth) except -1:
        """A new state (``out``, configuration ``oc``, at ``depth``): its store entry, the
        always-properties on it where any is left, and its place in the next level.
        ``judge_always``'s answer, or 0 where none was asked."""
        cdef int64_t tidx = self.n_stored
        cdef int k = 0
        self.n_stored += 1
        self.store_link(fp, parent, action)
        if has_always:
            k = self.judge_always(always_memo, oc, out, self.sizes[oc], tidx, depth)
        self.push_state(nxt, out, self.sizes[oc], sums, tidx, oc)
        return k

    cdef int store_link(self, int64_t fp, int64_t parent, uint16_t action) except -1:
        """A new state's entry in the path store: its fingerprint, its parent's index, the
        position of the action that made it among its parent's enabled ones."""
        buf_reserve(&self.store_fp, 1)
        buf_reserve(&self.store_parent, 1)
        buf_reserve(&self.store_action, 1)
        (<int64_t*> self.store_fp.p)[self.store_fp.n] = fp
        (<int64_t*> self.store_parent.p)[self.store_parent.n] = parent
        (<uint16_t*> self.store_action.p)[self.store_action.n] = action
        self.store_fp.n += 1
        self.store_parent.n += 1
        self.store_action.n += 1
        return 0

    cdef int judge_always(self, int32_t* always_memo, int oc, const uint32_t* out, int osize, int64_t tidx,
                          int64_t depth) except -1:
        """The always-properties on a new state (store index ``tidx``), from the table of its
        configuration ``oc`` or the driver: 0 none violated; else the driver was told, the
        tables start anew (they answer for the properties left), and 1 if any is left, 2 if
        none."""
        cdef int32_t res
        cdef int k
        self.check_calls += 1
        res = self.lookup(always_memo[oc], out)
        if res < 0:
            reads, results = self.driver.always_miss(oc, self.as_list(out, osize))
            res = self.checks_result(results)
            if reads is not None:
                self.put(always_memo[oc], reads, out, res)
        if (<int32_t*> self.res_len.p)[res] < 0:
            return 0
        left = self.driver.on_always(self.objects[(<int64_t*> self.res_off.p)[res]], tidx, depth)
        for k in range(self.nconf):
            always_memo[k] = self.new_memo()
        return 1 if left else 2

    # -- the search ------------------------------------------------------------------------------
    def search(self, list inits, int n_stored, tuple n_groups, int max_depth, int64_t max_states,
               bint has_always, bint has_sometimes, bint has_eventually, bint visiting):
        """Breadth-first from ``inits`` (``(configuration, vector, sums, store index)`` at depth
        0, already seen), as ``memo.memo_search`` does.  ``n_groups``: the enabled rule groups
        of each configuration.  Calls on the driver, each with the configuration first:
        ``enabled_miss``, ``step_miss``, ``always_miss``, ``sometimes_miss`` (each ``(reads or
        None, result)``; a step's also the successor whole after a rescale, ``(configuration,
        vector, sums)``, or ``None``), ``sometimes_across`` (the witnesses across a rescale), ``z``,
        ``is_progress``, ``on_always``/``on_sometimes`` (a result with something in it; they
        answer whether any property of that kind is left), ``quiescent``, ``visit`` and ``pace``
        (true: stop).  The figures are the attributes afterwards."""
        cdef int stride = self.stride, nsums = self.nsums, size, osize, k, p, j, c, oc
        cdef Arena cur, nxt, tmp
        cdef Buf ebuf
        cdef size_t pos = 0, cur_n = 0, e
        cdef int32_t group_memo[2][64]
        cdef int32_t always_memo[2]
        cdef int32_t res, m, cnt
        cdef int64_t idx, d = 0, fp, off
        cdef uint32_t* vec
        cdef uint64_t* sums
        cdef uint32_t* pair
        cdef uint32_t* xvec
        cdef uint32_t* nvec
        cdef uint32_t* out
        cdef uint64_t* nsm
        cdef uint32_t* wr
        cdef uint32_t slot, ai
        cdef uint64_t mn
        cdef bint has_progress, fresh_found = False
        cdef int64_t tick = 0
        cdef const unsigned char* ans
        cdef int ngroups[2]
        driver = self.driver
        self.n_stored = n_stored
        for c in range(self.nconf):
            ngroups[c] = n_groups[c]
            if ngroups[c] > 64:
                raise ValueError("more than 64 enabled rule groups")
            for k in range(ngroups[c]):
                group_memo[c][k] = self.new_memo()
            always_memo[c] = self.new_memo()
        pair = <uint32_t*> calloc(2 * stride, sizeof(uint32_t))
        xvec = <uint32_t*> calloc(stride, sizeof(uint32_t))
        nsm = <uint64_t*> calloc(nsums if nsums else 1, sizeof(uint64_t))
        if pair == NULL or xvec == NULL or nsm == NULL:
            raise MemoryError()
        arena_init(&cur)
        arena_init(&nxt)
        buf_init(&ebuf, 4)
        self.exhausted = False
        try:
            for c_i, vec_l, sums_t, ix in inits:
                for j in range(len(vec_l)):
                    xvec[j] = vec_l[j]
                for j in range(nsums):
                    nsm[j] = <uint64_t> sums_t[j]
                self.push_state(&cur, xvec, len(vec_l), nsm, ix, c_i)
            cur_n = cur.idx.n
            while True:
                if pos == cur_n:
                    if self.nworkers > 1:
                        # the claims: each owner says which of this level's successors it owns are
                        # new; those are stored, checked and expanded here
                        answers = driver.exchange(d, self.pending_fps())
                        ans = <const unsigned char*> (<const char*> answers)
                        for e in range(self.p_fp.n):
                            fp = (<int64_t*> self.p_fp.p)[e]
                            fpset_add(&self.known, <uint64_t> fp)
                            if not ans[e]:
                                continue
                            out = (<uint32_t*> self.pend.vec.p) + e * stride
                            oc = self.pend.conf.p[e]
                            k = self.admit(&nxt, fp, (<int64_t*> self.pend.idx.p)[e], (<uint16_t*> self.p_action.p)[e], out, oc,
                                           (<uint64_t*> self.pend.sums.p) + e * nsums, always_memo, has_always, d + 1)
                            if k:
                                has_always = k == 1
                        arena_clear(&self.pend)
                        self.p_fp.n = self.p_action.n = 0
                        fpset_clear(&self.claimed)
                        self.states = self.seen.used
                        k = driver.level_end(d, nxt.idx.n, self.seen.used, self.transitions, self.deepest)
                        if k == 1:
                            self.exhausted = True
                            break
                        if k == 2:
                            break
                    else:
                        if nxt.idx.n == 0:
                            self.exhausted = True
                            break
                        self.states = self.seen.used
                        driver.level_end(d, nxt.idx.n, self.seen.used, self.transitions, self.deepest)  # may fork workers
                        if self.nworkers > 1:  # forked: this process keeps every nworkers-th state of the next level
                            j = 0
                            for e in range(nxt.idx.n):
                                if <int> (e % self.nworkers) == self.rank:
                                    if <size_t> j != e:
                                        memcpy((<uint32_t*> nxt.vec.p) + j * stride, (<uint32_t*> nxt.vec.p) + e * stride, stride * 4)
                                        memcpy((<uint64_t*> nxt.sums.p) + j * nsums, (<uint64_t*> nxt.sums.p) + e * nsums, nsums * 8)
                                        (<int64_t*> nxt.idx.p)[j] = (<int64_t*> nxt.idx.p)[e]
                                        nxt.conf.p[j] = nxt.conf.p[e]
                                    j += 1
                            nxt.vec.n = j * stride
                            nxt.sums.n = j * nsums
                            nxt.idx.n = nxt.conf.n = j
                    tmp = cur; cur = nxt; nxt = tmp
                    arena_clear(&nxt)
                    cur_n = cur.idx.n
                    pos = 0
                    d += 1
                    continue  # a worker's share of a level may be empty: it still takes part in the level's end
                vec = (<uint32_t*> cur.vec.p) + pos * stride
                sums = (<uint64_t*> cur.sums.p) + pos * nsums
                idx = (<int64_t*> cur.idx.p)[pos]
                c = cur.conf.p[pos]
                size = self.sizes[c]
                pos += 1
                if d > self.deepest:
                    self.deepest = d
                if max_depth >= 0 and d >= max_depth:
                    self.depth_stopped = True
                    continue
                # the enabled actions, group by group
                ebuf.n = 0
                self.group_calls += ngroups[c]
                for k in range(ngroups[c]):
                    res = self.lookup(group_memo[c][k], vec)
                    if res < 0:
                        reads, acts = driver.enabled_miss(c, k, self.as_list(vec, size))
                        res = self.ids_result(acts)
                        if reads is not None:
                            self.put(group_memo[c][k], reads, vec, res)
                    cnt = (<int32_t*> self.res_len.p)[res]
                    if cnt:
                        off = (<int64_t*> self.res_off.p)[res]
                        buf_reserve(&ebuf, cnt)
                        memcpy((<uint32_t*> ebuf.p) + ebuf.n, (<uint32_t*> self.data.p) + off, cnt * 4)
                        ebuf.n += cnt
                if ebuf.n:
                    self.know_actions(c, max([(<uint32_t*> ebuf.p)[e] for e in range(ebuf.n)]) + 1)
                nvec = pair + size  # a successor in the same configuration: the pair (vec, nvec) is the witnesses' key
                memcpy(pair, vec, size * 4)
                has_progress = False
                for e in range(ebuf.n):
                    ai = (<uint32_t*> ebuf.p)[e]
                    self.transitions += 1
                    if not has_progress and self.progress[c].p[ai]:
                        has_progress = True
                    m = (<int32_t*> self.step_memo[c].p)[ai]
                    res = self.lookup(m, vec)
                    oc = c
                    out = nvec
                    if res < 0:
                        reads, writes, rescaled = driver.step_miss(c, ai, self.as_list(vec, size))
                        if rescaled is not None:
                            if reads is not None:  # cached: the configuration, then the successor whole
                                res = self.ids_result([rescaled[0]] + rescaled[1])
                                (<int32_t*> self.res_len.p)[res] = -2 - <int32_t> len(rescaled[1])
                                self.put(m, reads, vec, res)
                            else:
                                oc = rescaled[0]
                                out = xvec
                                for j in range(self.sizes[oc]):
                                    xvec[j] = rescaled[1][j]
                                for p in range(nsums):
                                    nsm[p] = <uint64_t> rescaled[2][p]
                        else:
                            res = self.ids_result([x for w in writes for x in w])
                            if reads is not None:
                                self.put(m, reads, vec, res)
                    if res >= 0 and (<int32_t*> self.res_len.p)[res] < -1:  # a rescale from the table
                        cnt = -2 - (<int32_t*> self.res_len.p)[res]
                        wr = (<uint32_t*> self.data.p) + (<int64_t*> self.res_off.p)[res]
                        oc = wr[0]
                        out = xvec
                        memcpy(xvec, wr + 1, cnt * 4)
                        for p in range(nsums):
                            nsm[p] = 0
                            for j in range(cnt):
                                nsm[p] += self.zob(oc, p, j, xvec[j])
                    elif oc == c:
                        cnt = (<int32_t*> self.res_len.p)[res] // 2
                        memcpy(nvec, vec, size * 4)
                        memcpy(nsm, sums, nsums * 8)
                        if cnt:
                            wr = (<uint32_t*> self.data.p) + (<int64_t*> self.res_off.p)[res]
                            for j in range(cnt):
                                slot = wr[2 * j]
                                for p in range(nsums):
                                    nsm[p] += self.zob(c, p, slot, wr[2 * j + 1]) - self.zob(c, p, slot, vec[slot])
                                nvec[slot] = wr[2 * j + 1]
                    osize = self.sizes[oc]
                    if has_sometimes:
                        if oc == c:
                            self.check_calls += 1
                            m = (<int32_t*> self.some_memo[c].p)[ai]
                            if m < 0:
                                m = self.new_memo()
                                (<int32_t*> self.some_memo[c].p)[ai] = m
                            res = self.lookup(m, pair)
                            if res < 0:
                                reads, results = driver.sometimes_miss(c, ai, self.as_list(pair, 2 * size))
                                res = self.checks_result(results)
                                if reads is not None:
                                    self.put(m, reads, pair, res)
                            results = self.objects[(<int64_t*> self.res_off.p)[res]] if (<int32_t*> self.res_len.p)[res] >= 0 else None
                        else:  # across a rescale (rare): asked of the plain worlds
                            results = driver.sometimes_across(c, ai, self.as_list(vec, size), oc, self.as_list(out, osize))
                            if not any(r is not None for r in results):
                                results = None
                        if results is not None:
                            has_sometimes = driver.on_sometimes(c, results, idx, ai)
                            fresh_found = True
                            for k in range(self.nconf):
                                for j in range(<int> self.some_memo[k].n):
                                    (<int32_t*> self.some_memo[k].p)[j] = -1
                    mn = nsm[0]
                    for p in range(1, nsums):
                        if nsm[p] < mn:
                            mn = nsm[p]
                    fp = <int64_t> mn
                    if self.nworkers > 1 and <int> ((<uint64_t> fp) % <uint64_t> self.nworkers) != self.rank:
                        # another worker owns it: claimed at the level's end, kept here meanwhile
                        if fpset_has(&self.seen, <uint64_t> fp) or fpset_has(&self.known, <uint64_t> fp) or not fpset_add(&self.claimed, <uint64_t> fp):
                            continue
                        self.push_state(&self.pend, out, osize, nsm, idx, oc)
                        buf_reserve(&self.p_fp, 1)
                        buf_reserve(&self.p_action, 1)
                        (<int64_t*> self.p_fp.p)[self.p_fp.n] = fp
                        (<uint16_t*> self.p_action.p)[self.p_action.n] = <uint16_t> e
                        self.p_fp.n += 1
                        self.p_action.n += 1
                        continue
                    if not self.add_seen(fp):
                        continue
                    k = self.admit(&nxt, fp, idx, <uint16_t> e, out, oc, nsm, always_memo, has_always, d + 1)
                    if k:
                        has_always = k == 1
                        fresh_found = True
                    if visiting:
                        driver.visit(oc, self.as_list(out, osize))
                if not has_progress:
                    self.quiescent += 1
                    if has_eventually:
                        driver.quiescent(c, self.as_list(vec, size), idx, d)
                        fresh_found = True
                tick += 1
                if fresh_found or (max_states >= 0 and <int64_t> self.seen.used >= max_states) or tick & 63 == 0:
                    fresh_found = False
                    PyErr_CheckSignals()
                    self.states = self.seen.used
                    self.queued = (cur_n - pos) + nxt.idx.n
                    if driver.pace(self.seen.used, self.transitions, self.deepest, self.queued):
                        break
        finally:
            self.states = self.seen.used
            self.queued = (cur_n - pos) + nxt.idx.n
            arena_free(&cur)
            arena_free(&nxt)
            free(ebuf.p); free(pair); free(xvec); free(nsm)
