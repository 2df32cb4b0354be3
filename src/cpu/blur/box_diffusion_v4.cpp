// src/cpu/blur/box_diffusion.cpp's loops compiled for x86-64-v4 (cpu/isa_level.hpp).
#define TK_ISA_LEVEL 2
#include "cpu/blur/box_diffusion.cpp"
