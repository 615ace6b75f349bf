package wire

// Validate checks that doc holds exactly one JSON value surrounded by optional
// white space, and returns the span of that value. It is the general scanner
// alone, without ScanRequest's fast path: the tests' reference for what the
// scanner accepts.
func (s Scanner) Validate(doc []byte) ([]byte, error) {
	i := SkipSpace(doc, 0)
	if i == len(doc) {
		return nil, &SyntaxError{Offset: i, Msg: ErrEmpty}
	}
	end, err := s.skip(doc, i, s.maxDepth())
	if err != nil {
		return nil, err
	}
	if j := SkipSpace(doc, end); j != len(doc) {
		return nil, &SyntaxError{Offset: j, Msg: ErrTrailing}
	}
	return doc[i:end], nil
}
