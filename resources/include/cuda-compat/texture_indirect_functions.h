// Empty stand-in shipped by tilefit: CUDA 13 removed texture_indirect_functions.h, which the CUDA wrapper of
// Clang 19 still includes. Used only when the toolkit lacks it.
#pragma once
