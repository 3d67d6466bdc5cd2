// SPDX-License-Identifier: MIT
/*
 * The demo benchmark: filters a synthetic 4096x100 grayscale image row by row.
 * Built with -DDEMO_SLOW, blur_row() uses a 7-tap kernel instead of 5, and tone_px() 13 rounds
 * instead of 10: the "change that made two functions slower" which perfgate must find.
 * blur_row runs 1000 times a run, cheap enough to trace; tone_px runs for every pixel, 4
 * million times a run, far too often to probe: its change must be found in the samples.
 * Usage: imgfilter [FRAMES [-v]]; -v prints the checksum (perfgate passes a benchmark's output
 * through, which would fill the demo's report).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define W 4096
#define H 100

static uint8_t img[H][W], out[H][W];

__attribute__((noinline)) void fill_row(uint8_t *row, unsigned int y)
{
	uint32_t s = y * 2654435761u + 1;

	for (unsigned int x = 0; x < W; x++) {
		s ^= s << 13, s ^= s >> 17, s ^= s << 5;
		row[x] = (uint8_t)s;
	}
}

__attribute__((noinline)) void blur_row(const uint8_t *in, uint8_t *o)
{
#ifdef DEMO_SLOW
	const int taps = 3;
#else
	const int taps = 2;
#endif
	for (int r = 0; r < 8; r++) {
		for (int x = taps; x < W - taps; x++) {
			unsigned int sum = 0;

			for (int k = -taps; k <= taps; k++)
				sum += in[x + k];
			o[x] = (uint8_t)(sum / (2 * taps + 1));
		}
	}
}

__attribute__((noinline)) void sharpen_row(const uint8_t *in, uint8_t *o)
{
	for (int r = 0; r < 8; r++)
		for (int x = 1; x < W - 1; x++) {
			int v = 3 * in[x] - in[x - 1] - in[x + 1];

			o[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
		}
}

__attribute__((noinline)) uint8_t tone_px(uint8_t v)
{
#ifdef DEMO_SLOW
	const int rounds = 13;
#else
	const int rounds = 10;
#endif
	uint32_t x = v;

	for (int i = 0; i < rounds; i++)
		x = (x * x + 7) % 257;
	return (uint8_t)x;
}

__attribute__((noinline)) void tone_row(uint8_t *row)
{
	for (int x = 0; x < W; x++)
		row[x] = tone_px(row[x]);
}

__attribute__((noinline)) uint32_t checksum_row(const uint8_t *row)
{
	uint32_t h = 2166136261u;

	for (int r = 0; r < 8; r++)
		for (int x = 0; x < W; x++)
			h = (h ^ row[x]) * 16777619u;
	return h;
}

__attribute__((noinline)) uint32_t process_image(void)
{
	uint32_t h = 0;

	for (unsigned int y = 0; y < H; y++) {
		fill_row(img[y], y);
		blur_row(img[y], out[y]);
		sharpen_row(out[y], img[y]);
		tone_row(img[y]);
		h ^= checksum_row(img[y]);
	}
	return h;
}

int main(int argc, char **argv)
{
	uint32_t h = 0;
	int frames = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < frames; i++)
		h ^= process_image();
	if (argc > 2)
		printf("checksum %08x\n", h);
	return 0;
}
