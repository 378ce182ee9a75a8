/* cfg.c: splits the decoded bytecode into basic blocks.
 *
 * A block starts at the first instruction, at every jump target and after every jump, return or
 * raise. Only blocks reachable from the entry are kept (in offset order, which is how the IR
 * numbers them), with their reverse post-order (the order ssa.c fills them in, so every block but
 * a loop header has all its predecessors filled first) and the value-stack depth at their entry,
 * from CPython's own stack effects, so ssa.c knows which stack slots flow in from predecessors.
 *
 * Inside a try (a range of the exception table), a block also has a handler: the block the
 * table sends its exceptions to, an edge of its own. Blocks start at the table's ranges and
 * targets, and before every instruction there that assigns a variable (a local, or the
 * exception being handled, ssa.c), so that wherever in a block an exception is raised, the
 * variables hold the values they have at its end: what the handler's phis take from it. */
#include "frontend/fe_internal.h"

static bool is_unconditional_jump(BcOp op)
{
    return op == BC_JUMP_FORWARD || op == BC_JUMP_BACKWARD || op == BC_JUMP_BACKWARD_NO_INTERRUPT;
}

static bool is_exit(BcOp op)
{
    return op == BC_RETURN_VALUE || op == BC_RETURN_CONST || op == BC_RAISE_VARARGS ||
           op == BC_RERAISE;
}

static bool ends_block(const BcInstr *in)
{
    return in->target_index >= 0 || is_exit(in->op);
}

const ExcEntry *cfg_entry_at(const FeCtx *ctx, const BcInstr *in)
{
    for (int e = 0; e < ctx->nexc; e++)
        if (in->offset >= ctx->exc[e].start && in->offset < ctx->exc[e].end)
            return &ctx->exc[e];
    return NULL;
}

/* Instructions that assign a variable ssa.c tracks: a local, or the exception being handled. */
static bool assigns(BcOp op)
{
    return op == BC_STORE_FAST || op == BC_STORE_DEREF || op == BC_DELETE_FAST ||
           op == BC_PUSH_EXC_INFO || op == BC_POP_EXCEPT;
}

/* The instruction starting at offset, or -1. */
static int index_at_offset(const FeCtx *ctx, int offset)
{
    int unit = offset / 2;
    return unit >= 0 && unit < ctx->ncodeunits ? ctx->index_at[unit] : -1;
}

/* The leaders the exception table adds: its ranges' bounds and targets, and assignments inside
 * a range. A handler's landing takes the stack below the handler's depth from its block's entry
 * (ssa.c); PUSH_EXC_INFO changes it (it pushes the previous exception under the new one), so
 * the code after it starts a block of its own. */
static void mark_exception_leaders(FeCtx *ctx, bool *leader)
{
    for (int e = 0; e < ctx->nexc; e++) {
        int at[3] = {index_at_offset(ctx, ctx->exc[e].start), index_at_offset(ctx, ctx->exc[e].end),
                     index_at_offset(ctx, ctx->exc[e].target)};
        for (int k = 0; k < 3; k++)
            if (at[k] >= 0)
                leader[at[k]] = true;
    }
    for (int i = 0; i < ctx->ninstrs; i++) {
        if (assigns(ctx->instrs[i].op) && cfg_entry_at(ctx, &ctx->instrs[i]))
            leader[i] = true;
        if (ctx->instrs[i].op == BC_PUSH_EXC_INFO)
            leader[i + 1] = true;
    }
}

/* Marks the leaders and gives every instruction the (provisional) number of its block. */
static int split_blocks(FeCtx *ctx, int *block_of, int **starts_out)
{
    bool *leader = arena_alloc(ctx->arena, sizeof(bool) * (size_t)(ctx->ninstrs + 1));
    leader[0] = true;
    for (int i = 0; i < ctx->ninstrs; i++) {
        const BcInstr *in = &ctx->instrs[i];
        if (in->target_index >= 0)
            leader[in->target_index] = true;
        if (ends_block(in))
            leader[i + 1] = true;
    }
    mark_exception_leaders(ctx, leader);
    int *starts = arena_alloc(ctx->arena, sizeof(int) * (size_t)(ctx->ninstrs + 1));
    int n = -1;
    for (int i = 0; i < ctx->ninstrs; i++) {
        if (leader[i])
            starts[++n] = i;
        block_of[i] = n;
    }
    *starts_out = starts;
    return n + 1;
}

/* Successors of the block [first, last]: fall-through first, then the jump target. */
static int successors(FeCtx *ctx, const int *block_of, int last, int succ[2])
{
    const BcInstr *in = &ctx->instrs[last];
    if (is_exit(in->op))
        return 0;
    if (is_unconditional_jump(in->op)) {
        succ[0] = block_of[in->target_index];
        return 1;
    }
    int n = 0;
    if (last + 1 >= ctx->ninstrs) {
        ctx->cur = in;
        return fe_error(ctx, DIAG_INTERNAL, "control falls off the end of the bytecode");
    }
    succ[n++] = block_of[last + 1];
    if (in->target_index >= 0)
        succ[n++] = block_of[in->target_index];
    return n;
}

/* The handler of the block starting at instruction first, or -1. */
static int find_handler(FeCtx *ctx, const int *block_of, int first)
{
    const ExcEntry *e = cfg_entry_at(ctx, &ctx->instrs[first]);
    int at = e ? index_at_offset(ctx, e->target) : -1;
    return at >= 0 ? block_of[at] : -1;
}

/* Every block control may go to from b: its successors, then its handler. */
static int all_succs(const CfgBlock *b, int out[3])
{
    int n = 0;
    for (int s = 0; s < b->nsucc; s++)
        out[n++] = b->succ[s];
    if (b->handler >= 0)
        out[n++] = b->handler;
    return n;
}

/* Depth-first search from the entry, iteratively (functions may be long); fills post-order. */
static int number_reachable(FeCtx *ctx, CfgBlock *all, int nall, int *post)
{
    int *stack = arena_alloc(ctx->arena, sizeof(int) * (size_t)(nall + 1));
    int *next_succ = arena_alloc(ctx->arena, sizeof(int) * (size_t)(nall + 1));
    bool *seen = arena_alloc(ctx->arena, sizeof(bool) * (size_t)(nall + 1));
    int sp = 0, npost = 0;
    stack[sp++] = 0;
    seen[0] = true;
    while (sp > 0) {
        int b = stack[sp - 1], succ[3], n = all_succs(&all[b], succ);
        if (next_succ[b] < n) {
            /* The handler and jump target first, so the fall-through comes first in reverse
             * post-order and the IR's blocks mostly keep the source's order. */
            int s = succ[n - 1 - next_succ[b]++];
            if (!seen[s]) {
                seen[s] = true;
                stack[sp++] = s;
            }
            continue;
        }
        post[npost++] = b;
        sp--;
    }
    return npost;
}

/* Keeps the reachable blocks, renumbered in offset order, and their reverse post-order. */
static void keep_reachable(FeCtx *ctx, CfgBlock *all, int nall, const int *post, int npost,
                           int *block_of)
{
    int *renumber = arena_alloc(ctx->arena, sizeof(int) * (size_t)(nall + 1));
    for (int b = 0; b < nall; b++)
        renumber[b] = -1;
    for (int k = 0; k < npost; k++)
        renumber[post[k]] = 0;
    ctx->blocks = arena_alloc(ctx->arena, sizeof(CfgBlock) * (size_t)(npost + 1));
    ctx->nblocks = 0;
    for (int b = 0; b < nall; b++)
        if (renumber[b] == 0) {
            renumber[b] = ctx->nblocks;
            ctx->blocks[ctx->nblocks++] = all[b];
        }
    for (int b = 0; b < ctx->nblocks; b++) {
        CfgBlock *cb = &ctx->blocks[b];
        for (int s = 0; s < cb->nsucc; s++) {
            cb->succ[s] = renumber[cb->succ[s]];
            ctx->blocks[cb->succ[s]].npreds++;
        }
        if (cb->handler >= 0) {   /* one edge from the block's landing (ssa.c) */
            cb->handler = renumber[cb->handler];
            ctx->blocks[cb->handler].npreds++;
        }
    }
    ctx->rpo = arena_alloc(ctx->arena, sizeof(int) * (size_t)(npost + 1));
    for (int k = 0; k < npost; k++) {
        int b = renumber[post[npost - 1 - k]];
        ctx->rpo[k] = b;
        ctx->blocks[b].rpo = k;
    }
    for (int i = 0; i < ctx->ninstrs; i++)
        block_of[i] = block_of[i] >= 0 ? renumber[block_of[i]] : -1;
    ctx->block_of = block_of;
}

/* The stack effect of in along one edge: jump = 1 when taking its jump, 0 otherwise. */
static int stack_effect(FeCtx *ctx, const BcInstr *in, int jump, int *effect)
{
    /* ssa.c sends 3.12's exhausted FOR_ITER past END_FOR, popping the iterator. */
    if (in->op == BC_FOR_ITER && jump && ctx->minor == 12) {
        *effect = -1;
        return 0;
    }
    /* A generator's frame starts with the value its first resumption sends, which the
     * POP_TOP after RETURN_GENERATOR drops (ssa.c pushes None there). */
    if (in->op == BC_RETURN_GENERATOR) {
        *effect = 1;
        return 0;
    }
    int e = PyCompile_OpcodeStackEffectWithJump(in->opcode, in->arg, jump);
    if (e == PY_INVALID_STACK_EFFECT) {
        PyErr_Clear();
        ctx->cur = in;
        return fe_error(ctx, DIAG_UNSUPPORTED, "opcode %s at line %d is not supported",
                        in->opname, in->line);
    }
    *effect = e;
    return 0;
}

static int set_depth(FeCtx *ctx, int b, int depth, const BcInstr *from)
{
    CfgBlock *cb = &ctx->blocks[b];
    ctx->cur = from;
    if (depth < 0 || depth > ctx->stacksize)
        return fe_error(ctx, DIAG_INTERNAL, "value stack depth %d out of range", depth);
    if (cb->depth >= 0 && cb->depth != depth)
        return fe_error(ctx, DIAG_INTERNAL, "stack depths %d and %d meet at offset %d", cb->depth,
                        depth, ctx->instrs[cb->first].offset);
    cb->depth = depth;
    return 0;
}

/* The handler's stack: the table's depth, then lasti if it says so, then the exception (CPython
 * sends only exceptions there; ssa.c makes these values itself). */
static int handler_depth(FeCtx *ctx, const CfgBlock *cb)
{
    const ExcEntry *e = cfg_entry_at(ctx, &ctx->instrs[cb->first]);
    ctx->blocks[cb->handler].entry = e;
    return set_depth(ctx, cb->handler, e->depth + e->lasti + 1, &ctx->instrs[cb->last]);
}

/* One pass in reverse post-order: every block's first visited predecessor comes before it. */
static int compute_depths(FeCtx *ctx)
{
    ctx->blocks[0].depth = 0;
    for (int k = 0; k < ctx->nblocks; k++) {
        CfgBlock *cb = &ctx->blocks[ctx->rpo[k]];
        int depth = cb->depth, e = 0;
        if (depth < 0)
            return fe_error(ctx, DIAG_INTERNAL, "block at offset %d has no known stack depth",
                            ctx->instrs[cb->first].offset);
        for (int i = cb->first; i < cb->last; i++) {
            if (stack_effect(ctx, &ctx->instrs[i], 0, &e) < 0)
                return -1;
            depth += e;
        }
        const BcInstr *last = &ctx->instrs[cb->last];
        for (int s = 0; s < cb->nsucc; s++) {
            bool jumps = last->target_index >= 0 && cb->succ[s] == ctx->block_of[last->target_index] &&
                         (s == 1 || is_unconditional_jump(last->op));
            if (stack_effect(ctx, last, jumps, &e) < 0 || set_depth(ctx, cb->succ[s], depth + e, last) < 0)
                return -1;
        }
        if (cb->handler >= 0 && handler_depth(ctx, cb) < 0)
            return -1;
    }
    return 0;
}

int cfg_build(FeCtx *ctx)
{
    if (ctx->ninstrs == 0)
        return fe_error(ctx, DIAG_INTERNAL, "empty bytecode");
    int *block_of = arena_alloc(ctx->arena, sizeof(int) * (size_t)(ctx->ninstrs + 1));
    int *starts;
    int nall = split_blocks(ctx, block_of, &starts);
    CfgBlock *all = arena_alloc(ctx->arena, sizeof(CfgBlock) * (size_t)(nall + 1));
    for (int b = 0; b < nall; b++) {
        all[b].first = starts[b];
        all[b].last = (b + 1 < nall ? starts[b + 1] : ctx->ninstrs) - 1;
        all[b].depth = all[b].rpo = -1;
        all[b].entry = NULL;   /* set on a handler by compute_depths */
        all[b].handler = find_handler(ctx, block_of, all[b].first);
        all[b].nsucc = successors(ctx, block_of, all[b].last, all[b].succ);
        if (all[b].nsucc < 0)
            return -1;
    }
    int *post = arena_alloc(ctx->arena, sizeof(int) * (size_t)(nall + 1));
    int npost = number_reachable(ctx, all, nall, post);
    keep_reachable(ctx, all, nall, post, npost, block_of);
    return compute_depths(ctx);
}
