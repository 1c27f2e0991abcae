#include "textflag.h"

// func minPerm32x32AVX2(a, b, m *[32]uint32, hs *[lanes]uint32, groups int)
//
// For each of the groups*8 hashes h at hs, and each of 32 permutations k:
// m[k] = min(m[k], a[k]*h + b[k] mod 2^32). Permutations are the lanes of four YMM
// registers each of a (Y0-Y3), b (Y4-Y7) and the running minimums (Y8-Y11); each hash
// is broadcast to all lanes (Y12).
TEXT ·minPerm32x32AVX2(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ m+16(FP), CX
	MOVQ hs+24(FP), SI
	MOVQ groups+32(FP), DX
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), Y3
	VMOVDQU 0(BX), Y4
	VMOVDQU 32(BX), Y5
	VMOVDQU 64(BX), Y6
	VMOVDQU 96(BX), Y7
	VMOVDQU 0(CX), Y8
	VMOVDQU 32(CX), Y9
	VMOVDQU 64(CX), Y10
	VMOVDQU 96(CX), Y11
	SHLQ $3, DX
	TESTQ DX, DX
	JZ done32

loop32:
	VPBROADCASTD (SI), Y12
	VPMULLD Y0, Y12, Y13
	VPADDD Y4, Y13, Y13
	VPMINUD Y13, Y8, Y8
	VPMULLD Y1, Y12, Y14
	VPADDD Y5, Y14, Y14
	VPMINUD Y14, Y9, Y9
	VPMULLD Y2, Y12, Y13
	VPADDD Y6, Y13, Y13
	VPMINUD Y13, Y10, Y10
	VPMULLD Y3, Y12, Y14
	VPADDD Y7, Y14, Y14
	VPMINUD Y14, Y11, Y11
	ADDQ $4, SI
	DECQ DX
	JNZ loop32

done32:
	VMOVDQU Y8, 0(CX)
	VMOVDQU Y9, 32(CX)
	VMOVDQU Y10, 64(CX)
	VMOVDQU Y11, 96(CX)
	VZEROUPPER
	RET

// func minPerm32x8AVX2(a, b, m *[8]uint32, hs *[lanes]uint32, groups int)
//
// minPerm32x32AVX2 for 8 permutations.
TEXT ·minPerm32x8AVX2(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ m+16(FP), CX
	MOVQ hs+24(FP), SI
	MOVQ groups+32(FP), DX
	VMOVDQU 0(AX), Y0
	VMOVDQU 0(BX), Y4
	VMOVDQU 0(CX), Y8
	SHLQ $3, DX
	TESTQ DX, DX
	JZ done8

loop8:
	VPBROADCASTD (SI), Y12
	VPMULLD Y0, Y12, Y13
	VPADDD Y4, Y13, Y13
	VPMINUD Y13, Y8, Y8
	ADDQ $4, SI
	DECQ DX
	JNZ loop8

done8:
	VMOVDQU Y8, 0(CX)
	VZEROUPPER
	RET
