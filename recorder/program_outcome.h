/* program_outcome: how a recorded program ended, whichever engine ran it. */
#ifndef TRMS_PROGRAM_OUTCOME_H
#define TRMS_PROGRAM_OUTCOME_H

struct program_outcome {
    int signal;             /* the signal that killed it, 0 when it exited */
    int exit_code;          /* when it exited */
};

#endif
