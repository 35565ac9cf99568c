package lua

import "github.com/yuin/gopher-lua/ast"

// maxSyntaxDepth bounds how deeply a chunk's syntax tree nests (HotKV
// patch). The compiler recurses over the tree, and Go's stack overflow is
// a fatal error, not a panic: `return not not ... 1` with a few million
// nots crashed the process. C Lua 5.1 stops nested constructs at 200
// levels ("chunk has too many syntax levels", which the parser's stack
// bound in package parse gives for them) but takes left-associative
// chains (1+1+...+1) of any length, whose trees are as deep as they are
// long; this bound is far above any script's.
const maxSyntaxDepth = 200000

// checkSyntaxDepth walks the tree without recursion and raises a
// CompileError at the first node nested deeper than maxSyntaxDepth.
func checkSyntaxDepth(context *funcContext, chunk []ast.Stmt) {
	type item struct {
		node  interface{}
		depth int
	}
	stack := make([]item, 0, 64)
	pushStmts := func(stmts []ast.Stmt, d int) {
		for _, s := range stmts {
			stack = append(stack, item{s, d})
		}
	}
	pushExprs := func(exprs []ast.Expr, d int) {
		for _, e := range exprs {
			stack = append(stack, item{e, d})
		}
	}
	push := func(e ast.Expr, d int) {
		if e != nil {
			stack = append(stack, item{e, d})
		}
	}
	pushStmts(chunk, 1)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		d := it.depth + 1
		if it.depth > maxSyntaxDepth {
			line := 0
			if p, ok := it.node.(ast.PositionHolder); ok {
				line = p.Line()
			}
			raiseCompileError(context, line, "chunk has too many syntax levels")
		}
		switch n := it.node.(type) {
		case *ast.AttrGetExpr:
			push(n.Object, d)
			push(n.Key, d)
		case *ast.TableExpr:
			for _, f := range n.Fields {
				push(f.Key, d)
				push(f.Value, d)
			}
		case *ast.FuncCallExpr:
			push(n.Func, d)
			push(n.Receiver, d)
			pushExprs(n.Args, d)
		case *ast.LogicalOpExpr:
			push(n.Lhs, d)
			push(n.Rhs, d)
		case *ast.RelationalOpExpr:
			push(n.Lhs, d)
			push(n.Rhs, d)
		case *ast.StringConcatOpExpr:
			push(n.Lhs, d)
			push(n.Rhs, d)
		case *ast.ArithmeticOpExpr:
			push(n.Lhs, d)
			push(n.Rhs, d)
		case *ast.UnaryMinusOpExpr:
			push(n.Expr, d)
		case *ast.UnaryNotOpExpr:
			push(n.Expr, d)
		case *ast.UnaryLenOpExpr:
			push(n.Expr, d)
		case *ast.FunctionExpr:
			pushStmts(n.Stmts, d)
		case *ast.AssignStmt:
			pushExprs(n.Lhs, d)
			pushExprs(n.Rhs, d)
		case *ast.LocalAssignStmt:
			pushExprs(n.Exprs, d)
		case *ast.FuncCallStmt:
			push(n.Expr, d)
		case *ast.DoBlockStmt:
			pushStmts(n.Stmts, d)
		case *ast.WhileStmt:
			push(n.Condition, d)
			pushStmts(n.Stmts, d)
		case *ast.RepeatStmt:
			push(n.Condition, d)
			pushStmts(n.Stmts, d)
		case *ast.IfStmt:
			push(n.Condition, d)
			pushStmts(n.Then, d)
			pushStmts(n.Else, d)
		case *ast.NumberForStmt:
			push(n.Init, d)
			push(n.Limit, d)
			push(n.Step, d)
			pushStmts(n.Stmts, d)
		case *ast.GenericForStmt:
			pushExprs(n.Exprs, d)
			pushStmts(n.Stmts, d)
		case *ast.FuncDefStmt:
			if n.Name != nil {
				push(n.Name.Func, d)
				push(n.Name.Receiver, d)
			}
			if n.Func != nil {
				stack = append(stack, item{n.Func, d})
			}
		case *ast.ReturnStmt:
			pushExprs(n.Exprs, d)
		}
	}
}
