/* program_path: the program a command is to run, found as execvp would
 * find it (a PATH search when the name has no '/'), before anything is
 * created: `trms record` and `trms explore` refuse a missing program as a
 * shell does, with its exit status. */
#ifndef TRMS_PROGRAM_PATH_H
#define TRMS_PROGRAM_PATH_H

#define EXIT_NOT_FOUND 127
#define EXIT_NOT_EXECUTABLE 126

/* The absolute path of NAME (free it), or NULL with *STATUS
 * EXIT_NOT_FOUND or EXIT_NOT_EXECUTABLE. */
char *program_path(const char *name, int *status);

/* "no such program" or "not an executable file", for STATUS. */
const char *program_path_problem(int status);

#endif
