/* sym_sample: a program whose code addresses the symbol tests name. It
 * prints the address and declaration line of some functions, then its own
 * /proc/self/maps, and exits. Built -g -O0, as PIE and as non-PIE. */
#include <stdio.h>

int lib_count_vowels(const char *s);
void *lib_hidden_sum_address(void);
extern const int lib_count_vowels_line, lib_hidden_sum_line;

const int str_tolower_line = __LINE__ + 1;
void str_tolower(char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            *s = (char)(*s - 'A' + 'a');
}

static const int count_words_line = __LINE__ + 1;
static int count_words(const char *s)
{
    int n = 0, in_word = 0;
    for (; *s; s++) {
        int letter = *s != ' ';
        n += letter && !in_word;
        in_word = letter;
    }
    return n;
}

int main(void)
{
    char text[] = "Hello World Of Symbols";
    str_tolower(text);
    /* The call goes through the PLT: the tests look for that section. */
    int vowels = lib_count_vowels(text);
    printf("func str_tolower %p %d\n", (void *)str_tolower, str_tolower_line);
    printf("func count_words %p %d\n", (void *)count_words, count_words_line);
    printf("func lib_count_vowels %p %d\n", (void *)lib_count_vowels, lib_count_vowels_line);
    printf("func lib_hidden_sum %p %d\n", lib_hidden_sum_address(), lib_hidden_sum_line);
    printf("result %d %d\n", count_words(text), vowels);
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return 1;
    char line[4096];
    while (fgets(line, sizeof line, maps))
        printf("map %s", line);
    fclose(maps);
    return 0;
}
