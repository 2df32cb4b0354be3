// src/cpu/quality/colour_batch.cpp's loops compiled for x86-64-v4 (cpu/isa_level.hpp).
#define TK_ISA_LEVEL 2
#include "cpu/quality/colour_batch.cpp"
