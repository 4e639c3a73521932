/*
 * Included in every source lineup-cc and lineup_add_harness compile
 * (-include): it says, in the object's .comment section, that the code was
 * compiled with their flags. lineup refuses a harness, and lineup run a
 * program, whose code calls ThreadSanitizer's hooks without it: compiled
 * with a plain -fsanitize=thread, its volatile accesses are no scheduling
 * points and the partial-order reduction can skip schedules. A .comment
 * string rather than a symbol: version scripts, --exclude-libs and strip
 * leave it (a symbol version, a review found, a version script hid). Not
 * for users to include.
 */
#ifndef __ASSEMBLER__
__asm__(".ident \"lineup-cc: instrumented for lineup\"");
#endif
