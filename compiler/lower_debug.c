/* lower_debug.c: line tables for lineinfo=True, so that the PTX carries .file and .loc lines and
 * compute-sanitizer, Nsight and cuda-gdb name the Python line of a kernel's instruction.
 *
 * Line tables only (no variables, no types): one compile unit for the module, one subprogram per
 * lowered function, and each IR instruction's source line set on the builder before it is lowered,
 * so everything it lowers to carries that line. Lowering also builds code outside the function
 * being lowered (helpers made on first use, the kernel entry); lower_debug_finish gives each
 * instruction a location in its own function's scope, or none where the function has no
 * subprogram, which is what LLVM's verifier requires. */
#include "compiler/lower.h"

#include <string.h>

void lower_debug_begin(Lower *L)
{
    if (!L->prog->lineinfo)
        return;
    const char *path = L->prog->funcs.len ? ((TypedFunc *)L->prog->funcs.items[0])->ir->filename : NULL;
    path = path ? path : "<unknown>";
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) : 0;
    L->dib = LLVMCreateDIBuilder(L->mod);
    L->di_file = LLVMDIBuilderCreateFile(L->dib, name, strlen(name), path, dirlen);
    LLVMDIBuilderCreateCompileUnit(L->dib, LLVMDWARFSourceLanguagePython, L->di_file, "pyjit", 5,
                                   1, "", 0, 0, "", 0, LLVMDWARFEmissionLineTablesOnly, 0, 0, 0,
                                   "", 0, "", 0);
}

/* The subprogram of the function about to be lowered (L->fn, L->ir), and its first line on the
 * builder, for what is built before the first instruction. */
void lower_debug_function(Lower *L)
{
    if (!L->dib)
        return;
    const char *path = L->ir->filename ? L->ir->filename : "<unknown>";
    LLVMMetadataRef file = LLVMDIBuilderCreateFile(L->dib, path, strlen(path), "", 0);
    LLVMMetadataRef ty = LLVMDIBuilderCreateSubroutineType(L->dib, file, NULL, 0, LLVMDIFlagZero);
    const char *name = L->ir->qualname ? L->ir->qualname : "?";
    size_t namelen = strlen(name);
    const char *link = LLVMGetValueName(L->fn);
    unsigned line = L->ir->firstline > 0 ? (unsigned)L->ir->firstline : 1;
    L->di_sp = LLVMDIBuilderCreateFunction(L->dib, file, name, namelen, link, strlen(link), file,
                                           line, ty, 1, 1, line, LLVMDIFlagZero, 1);
    LLVMSetSubprogram(L->fn, L->di_sp);
    lower_debug_line(L, (int)line);
}

void lower_debug_line(Lower *L, int line)
{
    if (!L->dib || !L->di_sp || line <= 0)
        return;
    LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(L->ctx, (unsigned)line, 0, L->di_sp, NULL);
    LLVMSetCurrentDebugLocation2(L->b, loc);
}

/* Each instruction's location in its own function's scope: the function's line where lowering
 * left another function's (or none, where a call needs one); none in a function without a
 * subprogram. */
static void repair_function(Lower *L, LLVMValueRef fn)
{
    LLVMMetadataRef sp = LLVMGetSubprogram(fn);
    LLVMMetadataRef fallback = sp ? LLVMDIBuilderCreateDebugLocation(
        L->ctx, LLVMDISubprogramGetLine(sp), 0, sp, NULL) : NULL;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in)) {
            LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(in);
            if (!sp)
                LLVMInstructionSetDebugLoc(in, NULL);
            else if (loc ? LLVMDILocationGetScope(loc) != sp : LLVMIsACallInst(in) != NULL)
                LLVMInstructionSetDebugLoc(in, fallback);
        }
}

void lower_debug_finish(Lower *L)
{
    if (!L->dib)
        return;
    LLVMSetCurrentDebugLocation2(L->b, NULL);
    for (LLVMValueRef fn = LLVMGetFirstFunction(L->mod); fn; fn = LLVMGetNextFunction(fn))
        repair_function(L, fn);
    LLVMDIBuilderFinalize(L->dib);
    LLVMDisposeDIBuilder(L->dib);
    L->dib = NULL;
    LLVMAddModuleFlag(L->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                      LLVMValueAsMetadata(LLVMConstInt(L->i32, LLVMDebugMetadataVersion(), 0)));
    LLVMAddModuleFlag(L->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                      LLVMValueAsMetadata(LLVMConstInt(L->i32, 4, 0)));
}
