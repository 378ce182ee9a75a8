/* infer_unroll.c: loops over tuples whose items differ in type (`for x in literal_unroll(t)`,
 * Numba's spelling, and a plain `for x in t`), unrolled: the loop's body is copied once per item,
 * x being t[k] in copy k, so each copy is typed for its own item, as Numba specialises the body
 * per item type.
 *
 * The worklist meets such a loop with t's type known and leaves the loop untyped (the GETITER
 * waits: infer_request_unroll); infer.c then calls infer_unroll on the untyped IR and runs
 * inference again from the start. The body is the set of blocks its entry dominates. Copy k's
 * back edges (the end of an iteration, `continue`) go to copy k+1, the last copy's to a new block
 * standing for the exhausted loop; the header's phis (the variables the loop carries) become
 * phis at each copy's entry and at that block. A `return` in the body returns from any copy; a
 * `break` is refused (the carried variables would need merging again after the loop). */
#include "compiler/infer.h"

#include <string.h>

typedef struct Unroll {
    Infer *c;
    IRFunc *fn;
    Block *header, *body, *exit, *pre;
    Instr *loop_iter, *tuple;
    int n, nids, nblocks;
    bool *in_body;       /* by block id */
    Block ***copies;     /* [k][block id] */
    Instr ***vals;       /* [k][value id]: a value of the loop in copy k */
    Block *done;         /* the exhausted loop */
} Unroll;

Type *infer_request_unroll(Infer *c, Instr *getiter)
{
    if (!c->unroll)
        c->unroll = getiter;
    return NULL;
}

static Instr *loop_of(IRFunc *fn, Instr *getiter)
{
    for (int i = 0; i < fn->blocks.len; i++) {
        Instr *t = ir_terminator(fn->blocks.items[i]);
        if (t && t->op == OP_FOR_ITER && t->args[0] == getiter)
            return t;
    }
    return NULL;
}

static int successors(Instr *t)
{
    return !t ? 0 : t->op == OP_BR ? 1 : (t->op == OP_CBR || t->op == OP_FOR_ITER) ? 2 : 0;
}

/* Marks the blocks reachable from `from` without entering `avoid`. */
static void reach(Block *from, Block *avoid, bool *seen)
{
    if (from == avoid || seen[from->id])
        return;
    seen[from->id] = true;
    Instr *t = ir_terminator(from);
    for (int k = 0; k < successors(t); k++)
        if (t->succ[k])
            reach(t->succ[k], avoid, seen);
}

/* The body: the blocks its entry dominates (reachable from it, not from the function's entry
 * around it). False when the loop is not the plain shape the frontend makes. */
static bool find_body(Unroll *u)
{
    int n = u->nblocks;
    bool *around = arena_alloc(u->c->arena, sizeof(bool) * (size_t)(n + 1));
    u->in_body = arena_alloc(u->c->arena, sizeof(bool) * (size_t)(n + 1));
    reach(u->fn->blocks.items[0], u->body, around);
    reach(u->body, u->header, u->in_body);
    for (int i = 0; i < n; i++)
        u->in_body[i] &= !around[i];
    for (int j = 0; j < u->header->instrs.len - 1; j++)
        if (((Instr *)u->header->instrs.items[j])->op != OP_PHI)
            return false;
    u->pre = NULL;
    for (int i = 0; i < u->header->preds.len; i++) {
        Block *p = u->header->preds.items[i];
        if (!u->in_body[p->id]) {
            if (u->pre)
                return false;
            u->pre = p;
        }
    }
    Instr *first = u->body->instrs.len ? u->body->instrs.items[0] : NULL;
    return u->pre && u->body->preds.len == 1 && !u->in_body[u->exit->id] &&
           !(first && first->op == OP_PHI);
}

static int pred_index(Block *b, Block *p)
{
    for (int i = 0; i < b->preds.len; i++)
        if (b->preds.items[i] == p)
            return i;
    return -1;
}

/* The value of v in copy k: its clone, the carried variable at that copy's entry, t[k] for the
 * loop variable, or v itself when the loop does not define it. */
static Instr *value_in(Unroll *u, int k, Instr *v)
{
    if (v->id < u->nids && u->vals[k][v->id])
        return u->vals[k][v->id];
    return v;
}

static Instr *copy_instr(Unroll *u, Instr *in, Block *to)
{
    Instr *c = ir_new_instr(u->fn, in->op, in->nargs, in->line);
    int id = c->id;
    Instr **args = c->args;
    *c = *in;
    c->id = id;
    c->args = args;
    c->type = NULL;
    c->aux = NULL;
    ir_append(to, c);
    return c;
}

static Instr *new_phi(Unroll *u, Block *at, Instr *like)
{
    Instr *phi = ir_new_instr(u->fn, OP_PHI, 0, like->line);
    phi->var = like->var;
    ir_append(at, phi);
    return phi;
}

/* The entry of copy k (k >= 1) or the exhausted loop (k == n): a phi per carried variable. */
static void entry_phis(Unroll *u, int k, Block *at)
{
    for (int j = 0; j < u->header->instrs.len - 1; j++) {
        Instr *hp = u->header->instrs.items[j];
        u->vals[k][hp->id] = new_phi(u, at, hp);
    }
}

static void first_copy_values(Unroll *u)
{
    int from = pred_index(u->header, u->pre);
    for (int j = 0; j < u->header->instrs.len - 1; j++) {
        Instr *hp = u->header->instrs.items[j];
        u->vals[0][hp->id] = hp->args[from];
    }
}

/* Copy k's blocks and instructions, operands still the originals (fill_copy maps them). */
static void make_copy(Unroll *u, int k)
{
    u->vals[k] = arena_alloc(u->c->arena, sizeof(Instr *) * (size_t)(u->nids + 1));
    u->copies[k] = arena_alloc(u->c->arena, sizeof(Block *) * (size_t)(u->nblocks + 1));
    for (int i = 0; i < u->nblocks; i++)
        if (u->in_body[i])
            u->copies[k][i] = ir_new_block(u->fn, ((Block *)u->fn->blocks.items[i])->offset);
    if (k == 0)
        first_copy_values(u);
    else
        entry_phis(u, k, u->copies[k][u->body->id]);
    Instr *item = ir_new_instr(u->fn, OP_STATIC_GETITEM, 1, u->loop_iter->line);
    item->args[0] = u->tuple;
    item->imm = k;
    item->imm2 = -1;
    item->var = u->loop_iter->var;
    ir_append(u->copies[k][u->body->id], item);
    u->vals[k][u->loop_iter->id] = item;
    for (int i = 0; i < u->nblocks; i++) {
        Block *b = u->fn->blocks.items[i];
        for (int j = 0; u->in_body[i] && j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            u->vals[k][in->id] = copy_instr(u, in, u->copies[k][i]);
        }
    }
}

/* The back edges of copy k (from orig's copy cb) enter copy k+1, or the exhausted loop: the
 * carried variables' values along that edge, as copy k has them. */
static void add_back_edge(Unroll *u, int k, Block *orig, Block *cb, Block *to)
{
    ir_add_pred(u->fn, to, cb);
    int from = pred_index(u->header, orig);
    for (int j = 0; j < u->header->instrs.len - 1; j++) {
        Instr *hp = u->header->instrs.items[j];
        Instr *phi = u->vals[k + 1][hp->id];
        Instr **args = arena_alloc(u->c->arena, sizeof *args * (size_t)(phi->nargs + 1));
        if (phi->nargs)
            memcpy(args, phi->args, sizeof *args * (size_t)phi->nargs);
        args[phi->nargs] = value_in(u, k, hp->args[from]);
        phi->args = args;
        phi->nargs++;
    }
}

/* Copy k's operands, predecessors and successors, mapped to copy k. */
static void fill_copy(Unroll *u, int k)
{
    Block *next = k + 1 < u->n ? u->copies[k + 1][u->body->id] : u->done;
    for (int i = 0; i < u->nblocks; i++) {
        Block *b = u->fn->blocks.items[i], *cb = u->in_body[i] ? u->copies[k][i] : NULL;
        if (!cb)
            continue;
        for (int j = 0; j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j], *c = u->vals[k][in->id];
            for (int a = 0; a < in->nargs; a++)
                c->args[a] = value_in(u, k, in->args[a]);
        }
        for (int p = 0; p < b->preds.len && b != u->body; p++)   /* inside: the same order */
            ir_add_pred(u->fn, cb, u->copies[k][((Block *)b->preds.items[p])->id]);
        Instr *t = ir_terminator(cb);
        for (int s = 0; s < successors(t); s++) {
            Block *orig = t->succ[s];
            if (orig == u->header) {
                t->succ[s] = next;
                add_back_edge(u, k, b, cb, next);
            } else {
                t->succ[s] = u->copies[k][orig->id];
            }
        }
    }
}

/* Edges from the body to elsewhere than the header (break) would need the carried variables
 * merged again after the loop: refused. */
static bool leaves_only_by_header(Unroll *u)
{
    for (int i = 0; i < u->nblocks; i++) {
        Instr *t = u->in_body[i] ? ir_terminator(u->fn->blocks.items[i]) : NULL;
        for (int s = 0; s < successors(t); s++)
            if (t->succ[s] != u->header && !u->in_body[t->succ[s]->id])
                return false;
    }
    return true;
}

/* After the copies: the preheader enters copy 0, the exhausted loop goes on to the exit, and
 * code after the loop reads the carried variables' final values. */
static void connect(Unroll *u)
{
    Instr *t = ir_terminator(u->pre);
    for (int s = 0; s < successors(t); s++)
        if (t->succ[s] == u->header)
            t->succ[s] = u->copies[0][u->body->id];
    ir_add_pred(u->fn, u->copies[0][u->body->id], u->pre);
    Instr *br = ir_new_instr(u->fn, OP_BR, 0, u->loop_iter->line);
    br->succ[0] = u->exit;
    ir_append(u->done, br);
    for (int i = 0; i < u->exit->preds.len; i++)
        if (u->exit->preds.items[i] == u->header)
            u->exit->preds.items[i] = u->done;
    for (int i = 0; i < u->nblocks; i++) {
        Block *b = u->fn->blocks.items[i];
        for (int j = 0; !u->in_body[i] && b != u->header && j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            for (int a = 0; a < in->nargs; a++)
                in->args[a] = value_in(u, u->n, in->args[a]);
        }
    }
}

/* The function's blocks in order: the copies, then the exhausted loop, where the body was;
 * the header and the original body dropped; the GETITER gone from the preheader. */
static void reorder(Unroll *u)
{
    PtrVec blocks = {0};
    bool placed = false;
    for (int i = 0; i < u->nblocks; i++) {
        Block *b = u->fn->blocks.items[i];
        if (b == u->header)
            continue;
        if (!u->in_body[i]) {
            vec_push(u->c->arena, &blocks, b);
            continue;
        }
        for (int k = 0; k < u->n && !placed; k++)
            for (int j = 0; j < u->nblocks; j++)
                if (u->in_body[j])
                    vec_push(u->c->arena, &blocks, u->copies[k][j]);
        if (!placed)
            vec_push(u->c->arena, &blocks, u->done);
        placed = true;
    }
    u->fn->blocks = blocks;
    for (int i = 0; i < blocks.len; i++)
        ((Block *)blocks.items[i])->id = i;
    PtrVec *pre = &u->pre->instrs;
    for (int j = 0; j < pre->len; j++)
        if (pre->items[j] == u->loop_iter->args[0]) {
            memmove(&pre->items[j], &pre->items[j + 1], sizeof(void *) * (size_t)(pre->len - j - 1));
            pre->len--;
            break;
        }
}

int infer_unroll(Infer *c, Instr *getiter, int n)
{
    Unroll u = {.c = c, .fn = c->fn, .tuple = getiter->args[0], .n = n,
                .nids = c->fn->next_id, .nblocks = c->fn->blocks.len};
    u.loop_iter = loop_of(c->fn, getiter);
    if (!u.loop_iter) {
        infer_fail(c, getiter, DIAG_UNSUPPORTED, "iterating over %s outside a for loop: items of "
                   "one type are needed", infer_type_name(getiter->args[0]->type));
        return -1;
    }
    u.header = u.loop_iter->block;
    u.body = u.loop_iter->succ[0];
    u.exit = u.loop_iter->succ[1];
    if (!find_body(&u) || !leaves_only_by_header(&u)) {
        infer_fail(c, u.loop_iter, DIAG_UNSUPPORTED, "a loop over %s (items of several types) is "
                   "unrolled, one copy per item, and cannot hold a break",
                   infer_type_name(u.tuple->type));
        return -1;
    }
    u.copies = arena_alloc(c->arena, sizeof(Block **) * (size_t)(n + 1));
    u.vals = arena_alloc(c->arena, sizeof(Instr **) * (size_t)(n + 1));
    for (int k = 0; k < n; k++)
        make_copy(&u, k);
    u.done = ir_new_block(u.fn, u.exit->offset);
    u.vals[n] = arena_alloc(c->arena, sizeof(Instr *) * (size_t)(u.nids + 1));
    entry_phis(&u, n, u.done);
    for (int k = 0; k < n; k++)
        fill_copy(&u, k);
    connect(&u);
    reorder(&u);
    return 0;
}
