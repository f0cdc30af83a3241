/** What each area module under api/graphql/areas gives the schema. */
export interface GraphQLArea {
  /** SDL; extends Query, Mutation and Subscription with `extend type`. */
  typeDefs: string;
  // Resolvers keyed by type then field, as mercurius takes them.
  resolvers: Record<string, Record<string, unknown>>;
}
