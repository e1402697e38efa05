#ifndef HUM_CCURSES_SHIM_H
#define HUM_CCURSES_SHIM_H
#include <ncurses.h>
#include <term.h>
#include <langinfo.h>
#include <locale.h>

/* What ncurses defines as macros Swift cannot import (computed attributes, mouse masks, stdscr under a
   reentrant build), as functions. */
static inline WINDOW *hum_stdscr(void) { return stdscr; }
static inline int hum_columns(void) { return COLS; }
static inline int hum_lines(void) { return LINES; }
/* A screen on the process's own stdin and stdout (NULL when the terminal cannot be used). */
static inline SCREEN *hum_newterm(void) { return newterm(NULL, stdout, stdin); }
/* Whether the locale's character set is UTF-8. */
static inline int hum_locale_is_utf8(void) {
    const char *set = nl_langinfo(CODESET);
    return set && set[0] == 'U' && set[1] == 'T' && set[2] == 'F' && set[3] == '-' && set[4] == '8' && !set[5];
}
static inline attr_t hum_attr_normal(void) { return A_NORMAL; }
static inline attr_t hum_attr_bold(void) { return A_BOLD; }
static inline attr_t hum_attr_dim(void) { return A_DIM; }
static inline attr_t hum_attr_reverse(void) { return A_REVERSE; }
static inline attr_t hum_attr_color_pair(short pair) { return COLOR_PAIR(pair); }
static inline mmask_t hum_mouse_button1(void) { return BUTTON1_PRESSED | BUTTON1_CLICKED; }
static inline int hum_mouse_is_button1(mmask_t state) {
    return (state & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED)) != 0;
}
static inline int hum_attrset(WINDOW *window, attr_t attributes) { return wattrset(window, (int)attributes); }
#endif
