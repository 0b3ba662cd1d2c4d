// open_file.h — every reader of a user's file opens it here: only a regular file is read. A FIFO, a
// device (/dev/zero) or a socket would make a reader wait forever or read without end, so the open
// does not wait for a FIFO's writer (O_NONBLOCK) and fstat refuses what is not a regular file at once.
#pragma once

#include <stdio.h>

// Opens path for reading only when it is a regular file. Returns the descriptor (close-on-exec,
// blocking again), or -1 with *why: an errno (EISDIR for a folder), or 0 when the path is not a
// regular file (bsOpenError words both).
int bsOpenRegularFile(const char* path, int* why);

// The same as a stdio stream ("rb"); NULL with *why as above.
FILE* bsOpenRegularStream(const char* path, int* why);

// "cannot open: <strerror>", "cannot read: Is a directory" or "not a regular file" for
// bsOpenRegularFile's why, into out.
void bsOpenError(int why, char* out, size_t size);
