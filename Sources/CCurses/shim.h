#ifndef HUM_CCURSES_SHIM_H
#define HUM_CCURSES_SHIM_H
#include <ncurses.h>
#include <term.h>
#endif
