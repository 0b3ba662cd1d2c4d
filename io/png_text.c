// png_text.c — a tEXt chunk read or added without decoding the image.
#include "png_text.h"

#include "open_file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char bs_pngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint32_t bsReadBe32(const unsigned char* b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

static void bsWriteBe32(unsigned char* b, uint32_t v)
{
	b[0] = (unsigned char)(v >> 24);
	b[1] = (unsigned char)(v >> 16);
	b[2] = (unsigned char)(v >> 8);
	b[3] = (unsigned char)v;
}

// CRC-32 of the PNG specification (ISO 3309), bit by bit: chunks here are a few hundred bytes.
static uint32_t bsCrc32(uint32_t crc, const unsigned char* data, size_t n)
{
	crc = ~crc;
	for (size_t i = 0; i < n; ++i)
	{
		crc ^= data[i];
		for (int k = 0; k < 8; ++k)
		{
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
		}
	}
	return ~crc;
}

bool bsPng_ReadText(const char* path, const char* key, char* out, size_t size)
{
	int why;
	FILE* f = bsOpenRegularStream(path, &why);
	if (f == NULL || size == 0)
	{
		if (f != NULL)
		{
			fclose(f);
		}
		return false;
	}
	unsigned char head[8];
	bool found = false;
	size_t keyLen = strlen(key);
	if (fread(head, 1, 8, f) == 8 && memcmp(head, bs_pngSignature, 8) == 0)
	{
		while (!found && fread(head, 1, 8, f) == 8)
		{
			uint32_t n = bsReadBe32(head);
			if (n > 0x7fffffffu || memcmp(head + 4, "IEND", 4) == 0)
			{
				break;
			}
			if (memcmp(head + 4, "tEXt", 4) == 0 && n > keyLen && n - keyLen - 1 < size)
			{
				char* body = malloc(n);
				if (body == NULL || fread(body, 1, n, f) != n)
				{
					free(body);
					break;
				}
				if (memcmp(body, key, keyLen) == 0 && body[keyLen] == '\0')
				{
					memcpy(out, body + keyLen + 1, n - keyLen - 1);
					out[n - keyLen - 1] = '\0';
					found = true;
				}
				free(body);
				if (fseek(f, 4, SEEK_CUR) != 0)  // the CRC
				{
					break;
				}
			}
			else if (fseek(f, (long)n + 4, SEEK_CUR) != 0)
			{
				break;
			}
		}
	}
	fclose(f);
	return found;
}

static bool bsPngText_Fail(const char* path, const char* what, char* err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", path, what);
	return false;
}

bool bsPng_AddText(const char* path, const char* key, const char* text, char* err, size_t errlen)
{
	size_t keyLen = strlen(key), textLen = strlen(text);
	if (keyLen < 1 || keyLen > 79 || textLen > 65536)
	{
		return bsPngText_Fail(path, "PNG text keyword or text too long", err, errlen);
	}
	int why;
	FILE* f = bsOpenRegularStream(path, &why);
	if (f == NULL)
	{
		char reason[160];
		bsOpenError(why, reason, sizeof(reason));
		snprintf(err, errlen, "%s: %s", path, reason);
		return false;
	}
	unsigned char* data = NULL;
	long size = -1;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 20 && fseek(f, 0, SEEK_SET) == 0)
	{
		data = malloc((size_t)size);
		if (data != NULL && fread(data, 1, (size_t)size, f) != (size_t)size)
		{
			free(data);
			data = NULL;
		}
	}
	fclose(f);
	if (data == NULL)
	{
		return bsPngText_Fail(path, "cannot read the PNG", err, errlen);
	}
	size_t n = (size_t)size;
	if (memcmp(data, bs_pngSignature, 8) != 0 || bsReadBe32(data + n - 12) != 0 ||
		memcmp(data + n - 8, "IEND", 4) != 0)
	{
		free(data);
		return bsPngText_Fail(path, "not a PNG ending in IEND", err, errlen);
	}
	// The chunk: length, "tEXt", key, NUL, text, CRC over type and data.
	size_t bodyLen = keyLen + 1 + textLen;
	unsigned char* chunk = malloc(bodyLen + 12);
	if (chunk == NULL)
	{
		free(data);
		return bsPngText_Fail(path, "out of memory", err, errlen);
	}
	bsWriteBe32(chunk, (uint32_t)bodyLen);
	memcpy(chunk + 4, "tEXt", 4);
	memcpy(chunk + 8, key, keyLen + 1);
	memcpy(chunk + 9 + keyLen, text, textLen);
	bsWriteBe32(chunk + 8 + bodyLen, bsCrc32(0, chunk + 4, bodyLen + 4));

	// In place: the chunk over the old IEND, then IEND again. The file is a render's temporary image,
	// which no one reads yet, so a half-done rewrite is never seen under a final name.
	FILE* o = fopen(path, "r+b");
	bool ok = o != NULL && fseek(o, (long)(n - 12), SEEK_SET) == 0 && fwrite(chunk, 1, bodyLen + 12, o) == bodyLen + 12 &&
		fwrite(data + n - 12, 1, 12, o) == 12;
	ok = o != NULL && fclose(o) == 0 && ok;
	if (!ok)
	{
		snprintf(err, errlen, "%s: cannot add the render record: %s", path, strerror(errno));
	}
	free(chunk);
	free(data);
	return ok;
}

bool bsPng_ReadSize(const char* path, int* width, int* height)
{
	int why;
	FILE* f = bsOpenRegularStream(path, &why);
	if (f == NULL)
	{
		return false;
	}
	unsigned char head[24];
	bool ok = fread(head, 1, sizeof(head), f) == sizeof(head) && memcmp(head, bs_pngSignature, 8) == 0 &&
		memcmp(head + 12, "IHDR", 4) == 0 && bsReadBe32(head + 16) <= 0x7fffffffu && bsReadBe32(head + 20) <= 0x7fffffffu;
	fclose(f);
	if (ok)
	{
		*width = (int)bsReadBe32(head + 16);
		*height = (int)bsReadBe32(head + 20);
	}
	return ok;
}
