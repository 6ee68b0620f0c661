! The minimal foehn model in Fortran: each rank holds a band of rows of an
! 8 x 4 lon/lat grid and writes tas every step. mpiexec -n 2 ./minimal_model
program minimal_model
  use mpi
  use foehn
  implicit none
  integer, parameter :: ni = 8, nj_glo = 4, nsteps = 4
  integer :: ierr, comm, rank, nprocs, jbegin, nj, i, j, step
  real(8), allocatable :: lon(:), lat(:), tas(:,:)
  type(foehn_context) :: ctx

  call MPI_Init(ierr)
  call foehn_init("minimal", "iodef.xml", MPI_COMM_WORLD, comm)  ! errors stop the run
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nprocs, ierr)
  jbegin = rank * nj_glo / nprocs                    ! my rows: jbegin+1 .. jbegin+nj
  nj = (rank + 1) * nj_glo / nprocs - jbegin
  allocate(lon(ni), lat(nj), tas(ni, nj))
  lon = [(i * 45.0d0, i = 0, ni - 1)]
  lat = [(-67.5d0 + (jbegin + j) * 45.0d0, j = 0, nj - 1)]
  call foehn_context_open("atm", comm, ctx)
  call foehn_set_domain_rectilinear(ctx, "globe", ni, nj_glo, 0, jbegin, lon, lat)
  call foehn_close_definition(ctx)
  do step = 1, nsteps
    call foehn_update_calendar(ctx, step)
    tas = reshape([((273.0d0 + step + i + 10 * (jbegin + j), i = 0, ni - 1), j = 0, nj - 1)], [ni, nj])
    call foehn_write(ctx, "tas", tas)
  end do
  call foehn_context_close(ctx)
  call foehn_finalize()
  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)
end program minimal_model
