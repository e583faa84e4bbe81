/* exec-faults: returns at once; what perf's page-faults:k counts of it is
 * the exec's own faults (elf_load()'s padzero() of the image's and ld.so's
 * data pages, and with ASLR sometimes create_elf_tables()'s stack write). */
int main(void) { return 0; }
