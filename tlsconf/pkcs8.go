package tlsconf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
)

// Encrypted PKCS#8 keys (RFC 5958's EncryptedPrivateKeyInfo, "BEGIN
// ENCRYPTED PRIVATE KEY"): what OpenSSL 3 writes by default (`openssl rsa
// -aes256`, `openssl genpkey -aes256`). Go's library cannot read them, so
// the PBES2 scheme (RFC 8018) with PBKDF2 and an AES or 3DES cipher is
// decrypted here; the older PBES1 schemes are refused.

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

type encryptedPrivateKeyInfo struct {
	Algo asn1Algorithm
	Data []byte
}

type asn1Algorithm struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type pbes2Params struct {
	KDF    asn1Algorithm
	Scheme asn1Algorithm
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int           `asn1:"optional"`
	PRF        asn1Algorithm `asn1:"optional"`
}

// decryptPKCS8 returns the PKCS#8 PrivateKeyInfo that der, an
// EncryptedPrivateKeyInfo, holds encrypted with pass.
func decryptPKCS8(der []byte, pass string) ([]byte, error) {
	var info encryptedPrivateKeyInfo
	if _, err := asn1.Unmarshal(der, &info); err != nil {
		return nil, fmt.Errorf("malformed encrypted PKCS#8 key: %v", err)
	}
	if !info.Algo.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("encrypted PKCS#8 key: scheme %v is not supported (only PBES2)", info.Algo.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algo.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("malformed PBES2 parameters: %v", err)
	}
	if !params.KDF.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("encrypted PKCS#8 key: key derivation %v is not supported (only PBKDF2)", params.KDF.Algorithm)
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KDF.Parameters.FullBytes, &kdf); err != nil {
		return nil, fmt.Errorf("malformed PBKDF2 parameters: %v", err)
	}
	prf := sha1.New // RFC 8018's default
	if kdf.PRF.Algorithm != nil {
		var ok bool
		if prf, ok = map[string]func() hash.Hash{
			oidHMACSHA1.String(): sha1.New, oidHMACSHA224.String(): sha256.New224,
			oidHMACSHA256.String(): sha256.New, oidHMACSHA384.String(): sha512.New384,
			oidHMACSHA512.String(): sha512.New,
		}[kdf.PRF.Algorithm.String()]; !ok {
			return nil, fmt.Errorf("encrypted PKCS#8 key: PRF %v is not supported", kdf.PRF.Algorithm)
		}
	}
	var keyLen int
	var newBlock func([]byte) (cipher.Block, error)
	switch a := params.Scheme.Algorithm; {
	case a.Equal(oidAES128CBC):
		keyLen, newBlock = 16, aes.NewCipher
	case a.Equal(oidAES192CBC):
		keyLen, newBlock = 24, aes.NewCipher
	case a.Equal(oidAES256CBC):
		keyLen, newBlock = 32, aes.NewCipher
	case a.Equal(oidDESEDE3CBC):
		keyLen, newBlock = 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("encrypted PKCS#8 key: cipher %v is not supported", a)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(params.Scheme.Parameters.FullBytes, &iv); err != nil {
		return nil, fmt.Errorf("malformed cipher parameters: %v", err)
	}
	key, err := pbkdf2.Key(prf, pass, kdf.Salt, kdf.Iterations, keyLen)
	if err != nil {
		return nil, err
	}
	block, err := newBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(iv) != bs || len(info.Data) == 0 || len(info.Data)%bs != 0 {
		return nil, errors.New("malformed encrypted PKCS#8 key")
	}
	out := make([]byte, len(info.Data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, info.Data)
	// PKCS#7 padding; a wrong password shows here (or in the parse).
	n := int(out[len(out)-1])
	if n == 0 || n > bs || !bytes.Equal(out[len(out)-n:], bytes.Repeat([]byte{byte(n)}, n)) {
		return nil, errBadPassword
	}
	return out[:len(out)-n], nil
}

var errBadPassword = errors.New("bad password or corrupt key")
