// hash.h — FNV-1a 64, the one hash of files, meshes, cache keys and benchmark checksums.
#pragma once
#include <stddef.h>
#include <stdint.h>

#define BS_FNV1A_BASIS 14695981039346656037ull  // the offset basis: the hash of no bytes

// h with size more bytes of data hashed in (start from BS_FNV1A_BASIS).
static inline uint64_t bsFnv1a(uint64_t h, const void* data, size_t size)
{
	const unsigned char* p = (const unsigned char*)data;
	for (size_t i = 0; i < size; ++i)
	{
		h = (h ^ p[i]) * 1099511628211ull;
	}
	return h;
}

// h with v's 8 bytes hashed in, least significant first whatever the machine.
static inline uint64_t bsFnv1a_U64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; ++i)
	{
		h = (h ^ ((v >> (8 * i)) & 0xffu)) * 1099511628211ull;
	}
	return h;
}
