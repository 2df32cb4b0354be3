// src/cpu/quality/colour_batch.cpp's loops compiled for x86-64-v3 (cpu/isa_level.hpp).
#define TK_ISA_LEVEL 1
#include "cpu/quality/colour_batch.cpp"
