#include "textflag.h"

// func l2sqAVX2(a, b *float32, n int) float32
// n is a positive multiple of 8.
TEXT ·l2sqAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
l2loop16:
	CMPQ CX, $16
	JL   l2tail8
	VMOVUPS (SI), Y2
	VMOVUPS 32(SI), Y3
	VSUBPS  (DI), Y2, Y2
	VSUBPS  32(DI), Y3, Y3
	VFMADD231PS Y2, Y2, Y0
	VFMADD231PS Y3, Y3, Y1
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  l2loop16
l2tail8:
	CMPQ CX, $8
	JL   l2done
	VMOVUPS (SI), Y2
	VSUBPS  (DI), Y2, Y2
	VFMADD231PS Y2, Y2, Y0
l2done:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotAVX2(a, b *float32, n int) float32
// n is a positive multiple of 8.
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
dotloop16:
	CMPQ CX, $16
	JL   dottail8
	VMOVUPS (SI), Y2
	VMOVUPS 32(SI), Y3
	VFMADD231PS (DI), Y2, Y0
	VFMADD231PS 32(DI), Y3, Y1
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  dotloop16
dottail8:
	CMPQ CX, $8
	JL   dotdone
	VMOVUPS (SI), Y2
	VFMADD231PS (DI), Y2, Y0
dotdone:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func l2sqBatchAVX2(q, data *float32, dim, count int, out *float32)
// out[j] = the squared L2 distance of q and data[j*dim:(j+1)*dim], for j
// below count; dim is a positive multiple of 8.
TEXT ·l2sqBatchAVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ data+8(FP), DI
	MOVQ dim+16(FP), DX
	MOVQ count+24(FP), BX
	MOVQ out+32(FP), R8
	TESTQ BX, BX
	JZ    batchend
batchvec:
	MOVQ   SI, R9
	MOVQ   DX, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
batch16:
	CMPQ CX, $16
	JL   batch8
	VMOVUPS (R9), Y2
	VMOVUPS 32(R9), Y3
	VSUBPS  (DI), Y2, Y2
	VSUBPS  32(DI), Y3, Y3
	VFMADD231PS Y2, Y2, Y0
	VFMADD231PS Y3, Y3, Y1
	ADDQ $64, R9
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  batch16
batch8:
	CMPQ CX, $8
	JL   batchsum
	VMOVUPS (R9), Y2
	VSUBPS  (DI), Y2, Y2
	VFMADD231PS Y2, Y2, Y0
	ADDQ $32, DI
batchsum:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS X0, (R8)
	ADDQ  $4, R8
	DECQ  BX
	JNZ   batchvec
batchend:
	VZEROUPPER
	RET
