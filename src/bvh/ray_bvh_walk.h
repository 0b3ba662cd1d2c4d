// ray_bvh_walk.h — the walk of the 8-wide ray tree, included by ray_bvh.c once for each copy of the
// runtime dispatch (src/collide/dispatch.h): BS_RAY_WALK names the function, BS_RAY_WALK_TARGET is its
// target attribute (empty for the default copy) and BS_RAY_WALK_BOXES the slab test it calls (the
// 8-lane AVX one or the 4-lane SSE one, the same float operations). One source, two compilations:
// an always-inline body cannot hold AVX intrinsics in a default-target function.
//
// The walk: the nearest entered child is taken next, the others pushed (on equal entry times the
// lower slot first); the search interval is the float `limit`, at or above the best t, so a box or
// deferred entry is dropped only when it cannot hold a contact at or before the best t (the answer
// does not depend on the order, only the work). Returns false if the stack would overflow
// (impossible for a tree collapsed from bsBvh_Build's, whose depth is at most BS_BVH_MAX_DEPTH).
static BS_RAY_WALK_TARGET bool BS_RAY_WALK(const bsRayBvh* rb, bsRayFrame* frame,
	const bsRayBvhLanes* lanes, bsBvhBest* best, uint64_t* visited, uint64_t* tested)
{
	bsRayBvhEntry stack[BS_RAY_BVH_STACK];
	int top = 0;
	float limit = 1.0f;
	uint32_t child = 0, count = 0;
	uint64_t nodes = 0, triangles = 0;
	for (;;)
	{
		if (count > 0)
		{
			triangles += count;
			if (bsRay_TestRange(rb->tris, rb->triIndex, rb->openEdges, frame, child, count, best))
			{
				limit = bsFloatUp(best->hit.t);
			}
		}
		else
		{
			const bsRayBvhNode* node = rb->nodes + child;
			nodes += 1;
			_Alignas(32) float entry[8];
			unsigned mask = BS_RAY_WALK_BOXES(lanes, node, limit, entry);
			if (mask != 0)
			{
				int nearest = __builtin_ctz(mask);
				// Most nodes of a short segment have one entered child: nothing to order or push.
				if ((mask & (mask - 1)) != 0)
				{
					if (top + 7 > BS_RAY_BVH_STACK)
					{
						return false;
					}
					nearest = bsRayBvh_Push(node, mask, entry, stack, &top);
				}
				child = node->child[nearest];
				count = node->count[nearest];
				continue;
			}
		}
		// The next deferred entry the segment enters at or before the limit.
		for (;;)
		{
			if (top == 0)
			{
				*visited += nodes;
				*tested += triangles;
				return true;
			}
			bsRayBvhEntry e = stack[--top];
			if (e.key <= limit)
			{
				child = e.child;
				count = e.count;
				break;
			}
		}
	}
}
